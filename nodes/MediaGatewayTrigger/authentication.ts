/**
 * Shared-secret checks for incoming callbacks. The gateway does not sign its callbacks, so the only
 * proof a caller can give is a token the user put into the callback URL (or a proxy adds as a
 * header). Comparison is in constant time: both sides are hashed to fixed-length digests first,
 * so neither the content nor the length of the expected token leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
	return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * True only when `presented` is a string equal to a non-empty `expected`. Anything else (missing,
 * repeated header or query parameter arriving as an array, an empty expected secret) is false.
 */
export function secretsMatch(presented: unknown, expected: unknown): boolean {
	if (typeof presented !== 'string' || typeof expected !== 'string' || expected.length === 0) {
		return false;
	}
	return timingSafeEqual(digest(presented), digest(expected));
}

/** A header by name, as Node.js keeps them (lower-case keys). Undefined when absent. */
export function headerValue(headers: Record<string, unknown> | undefined, name: string): unknown {
	if (!headers) return undefined;
	const key = name.trim().toLowerCase();
	return Object.prototype.hasOwnProperty.call(headers, key) ? headers[key] : undefined;
}

/** A query parameter by exact name; own properties only, so `?constructor` cannot reach a prototype. */
export function queryValue(query: unknown, name: string): unknown {
	if (typeof query !== 'object' || query === null) return undefined;
	const key = name.trim();
	return Object.prototype.hasOwnProperty.call(query, key) ? (query as Record<string, unknown>)[key] : undefined;
}
