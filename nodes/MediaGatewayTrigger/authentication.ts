/**
 * The trigger's authentication: a shared secret. The gateway does not sign its callbacks (see
 * docs/gateway-interface.md, Authentication and Callbacks), so the only proof a caller can give is a
 * token the user put into the callback URL (or a proxy adds as a header). Comparison is in constant
 * time: both sides are hashed to fixed-length digests first, so neither the content nor the length of
 * the expected token leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DEFAULT_HEADER_NAME, DEFAULT_QUERY_NAME, LABEL } from './description';

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
	return Object.prototype.hasOwnProperty.call(query, key)
		? (query as Record<string, unknown>)[key]
		: undefined;
}

/**
 * Why this request is refused with 401, or undefined when it may go on (Authentication is None, or
 * the secret presented matches). Checked before anything else, so an unauthenticated caller learns
 * nothing about the body rules.
 */
export function authenticationFailure(ctx: IWebhookFunctions): string | undefined {
	const authentication = ctx.getNodeParameter('authentication', 'none') as string;
	if (authentication === 'none') return undefined;
	const expected = ctx.getNodeParameter('secretToken', '') as string;
	const presented =
		authentication === 'headerToken'
			? headerValue(
					ctx.getHeaderData() as Record<string, unknown>,
					(ctx.getNodeParameter('headerName', DEFAULT_HEADER_NAME) as string) ||
						DEFAULT_HEADER_NAME,
				)
			: queryValue(
					ctx.getQueryData(),
					(ctx.getNodeParameter('queryParameterName', DEFAULT_QUERY_NAME) as string) ||
						DEFAULT_QUERY_NAME,
				);
	if (secretsMatch(presented, expected)) return undefined;
	return presented === undefined ? 'missing callback token' : 'invalid callback token';
}

/**
 * Refuses to activate a workflow whose trigger asks for a secret but has none: every callback would
 * get 401. Returns the authentication mode, which activation records.
 */
export function assertSecretConfigured(ctx: IHookFunctions): string {
	const authentication = ctx.getNodeParameter('authentication', 'none') as string;
	if (authentication !== 'none') {
		const secret = ctx.getNodeParameter('secretToken', '') as string;
		if (typeof secret !== 'string' || secret.length === 0) {
			throw new NodeOperationError(ctx.getNode(), `The ${LABEL.secretToken} is empty`, {
				description: `Enter a secret token, or set ${LABEL.authentication} to None. With an empty token every callback would be rejected with 401.`,
			});
		}
	}
	return authentication;
}
