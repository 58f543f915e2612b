/**
 * The body of a gateway answer: read within a size bound, and sanitised before it can reach an
 * output item (no callback address, no key, no resume signature).
 */
import type { IDataObject } from 'n8n-workflow';

import { redactSecrets } from './redact';

/** The gateway answers with small JSON documents; anything bigger is not an answer we can use. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** A readable stream as n8n's helper returns it with `encoding: 'stream'`. */
export interface ResponseStream extends AsyncIterable<Buffer | string> {
	destroy(error?: Error): void;
}

export function discardBody(body: unknown): void {
	(body as Partial<ResponseStream> | undefined)?.destroy?.();
}

export class ResponseTooLargeError extends Error {
	constructor(readonly limit: number) {
		super(`The answer is larger than ${limit} bytes`);
	}
}

/**
 * Destroys a response stream when the signal fires. n8n's authenticated request helper replaces a
 * request's abort signal with the execution's cancel signal, so a time limit of ours has to reach
 * the body this way.
 */
export function destroyOnAbort(body: unknown, signal: AbortSignal | undefined): () => void {
	const stream = body as Partial<ResponseStream> | undefined;
	if (!signal || typeof stream?.destroy !== 'function') return () => {};
	const destroy = () => stream.destroy!(new Error('The time limit passed'));
	if (signal.aborted) destroy();
	else signal.addEventListener('abort', destroy, { once: true });
	return () => signal.removeEventListener('abort', destroy);
}

/** Reads an answer body up to `limit` bytes; a longer one is cut off and refused. */
export async function readBoundedText(
	body: unknown,
	limit: number,
	signal?: AbortSignal,
): Promise<string> {
	if (body === undefined || body === null) return '';
	if (typeof body === 'string') {
		if (Buffer.byteLength(body) > limit) throw new ResponseTooLargeError(limit);
		return body;
	}
	if (Buffer.isBuffer(body)) {
		if (body.length > limit) throw new ResponseTooLargeError(limit);
		return body.toString('utf8');
	}
	const stream = body as ResponseStream;
	if (typeof stream[Symbol.asyncIterator] !== 'function') return JSON.stringify(body);
	const chunks: Buffer[] = [];
	let size = 0;
	const release = destroyOnAbort(stream, signal);
	try {
		for await (const chunk of stream) {
			const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			size += buffer.length;
			if (size > limit) {
				stream.destroy();
				throw new ResponseTooLargeError(limit);
			}
			chunks.push(buffer);
		}
	} finally {
		release();
	}
	return Buffer.concat(chunks).toString('utf8');
}

export function formatBytes(bytes: number): string {
	if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
	if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KiB`;
	return `${bytes} bytes`;
}

/** Keys under which a gateway echoes the callback address it was given; never copied into output. */
const HOOK_KEYS = /^(notify_?hook|notify_?url|callback_?url|webhook_?url)$/i;
/** n8n's resume URLs carry a signature that lets anyone resume the execution. */
const RESUME_SIGNATURE = /(\/webhook-waiting\/[^\s"'?]*\?(?:[^\s"']*&)?signature=)[^\s"'&]+/gi;
const MAX_SANITISE_DEPTH = 32;

/**
 * The gateway's answer as output may carry it: no callback address (the resume URL lets anyone
 * resume the execution) and no key, at any depth.
 */
export function sanitiseAnswer(
	value: unknown,
	secrets: Array<string | undefined>,
	depth = 0,
): unknown {
	if (typeof value === 'string') {
		return redactSecrets(value, secrets)!.replace(RESUME_SIGNATURE, '$1***');
	}
	if (!value || typeof value !== 'object' || depth >= MAX_SANITISE_DEPTH) return value;
	if (Array.isArray(value)) return value.map((entry) => sanitiseAnswer(entry, secrets, depth + 1));
	const result: IDataObject = {};
	for (const [key, entry] of Object.entries(value as IDataObject)) {
		if (HOOK_KEYS.test(key)) continue;
		result[key] = sanitiseAnswer(entry, secrets, depth + 1) as IDataObject[string];
	}
	return result;
}
