/**
 * Gateway failures as n8n errors (docs/gateway-interface.md, "Errors"): each names what failed and
 * what to fix. The caller adds what only it knows through `ErrorHints` (which parameter a 404
 * points at, how to slow down after a 429).
 */
import type { IN8nHttpFullResponse, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { GatewayCredentials } from './credentials';
import { redactSecrets } from './redact';
import { MAX_REDIRECTS, type RedirectRefusedError } from './redirects';
import type { GatewayContext, GatewayRequest } from './request';
import { retryAfterMs, type RetryPolicy } from './retry';

/** What the caller knows about its request that the transport does not. */
export interface ErrorHints {
	/** Advice for a 404: which parameter names what the gateway does not know (default: check the Base URL). */
	notFound?: string;
	/** Advice after a 429 that outlasted the retries (default: wait between batches or try later). */
	rateLimited?: string;
}

const DEFAULT_NOT_FOUND =
	'Check the Base URL in the Media Gateway API credential: it must be the gateway root (without /v1 or /imgmodel), e.g. https://gateway.example.com.';
const DEFAULT_RATE_LIMITED = 'Add a Wait node between batches, or try again later.';

/** Connection failures that happen before any byte of the request reached the gateway. */
export const NOT_SENT_CODES = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
]);
/** Failures after the request may have been received: only an idempotent GET may repeat it. */
export const MAYBE_SENT_CODES = new Set([
	'ECONNRESET',
	'EPIPE',
	'ETIMEDOUT',
	'ECONNABORTED',
	'ESOCKETTIMEDOUT',
]);

/** The n8n error for a redirect that was not followed: names where it pointed and what to fix. */
export function redirectError(
	ctx: GatewayContext,
	refused: RedirectRefusedError,
	itemIndex: number,
): NodeApiError {
	const where = `${refused.method} ${refused.from.host}${refused.from.pathname}`;
	let target: string;
	try {
		target = new URL(refused.to).origin;
	} catch {
		target = refused.to.slice(0, 100);
	}
	const texts: Record<RedirectRefusedError['reason'], [string, string]> = {
		notHttp: [
			`${where} redirected to an address that is not http(s)`,
			'The redirect was not followed.',
		],
		tooMany: [
			`${where} redirected more than ${MAX_REDIRECTS} times`,
			`The last hop pointed at ${target}. The redirects were not followed further.`,
		],
		otherOrigin: [
			`The gateway redirected ${refused.method} ${refused.from.pathname} to another address (${target})`,
			`The redirect was not followed: the API key is only ever sent to the Base URL (${refused.keyOrigin}). If the gateway has moved, enter its new address as the Base URL in the Media Gateway API credential.`,
		],
		changesMethod: [
			`The gateway redirected ${refused.method} ${refused.from.pathname} (HTTP ${refused.status})`,
			`The request was not repeated: this redirect would turn it into a GET. If the gateway has moved (e.g. from http:// to https://), enter ${target} as the Base URL in the Media Gateway API credential.`,
		],
	};
	const [message, description] = texts[refused.reason];
	return new NodeApiError(
		ctx.getNode(),
		{ message: refused.message },
		{
			message,
			description,
			httpCode: String(refused.status),
			itemIndex,
		},
	);
}

export function errorCode(error: unknown): string {
	const candidate = error as { code?: unknown; cause?: { code?: unknown } };
	const code = candidate?.code ?? candidate?.cause?.code;
	return typeof code === 'string' ? code : '';
}

/** n8n's SSRF protection (2.x) refused the address: its error, found anywhere in the cause chain. */
export interface SsrfBlock {
	description?: string;
	/** The blocked host name or address, which after a redirect is not the first URL's. */
	target?: string;
}

export function ssrfBlock(error: unknown): SsrfBlock | undefined {
	let current = error as
		| { name?: unknown; description?: unknown; cause?: unknown; hostname?: unknown; ip?: unknown }
		| undefined;
	for (let depth = 0; current && depth < 5; depth++) {
		if (current.name === 'SsrfBlockedIpError' || current.name === 'SsrfBlockedHostnameError') {
			const target = [current.hostname, current.ip].find(
				(value): value is string => typeof value === 'string' && value !== '',
			);
			return {
				description: typeof current.description === 'string' ? current.description : undefined,
				target,
			};
		}
		current = current.cause as typeof current;
	}
	return undefined;
}

export function ssrfError(
	ctx: GatewayContext,
	blocked: SsrfBlock,
	host: string,
	itemIndex: number,
): NodeApiError {
	return new NodeApiError(
		ctx.getNode(),
		{ message: 'Blocked by SSRF protection' },
		{
			message: `n8n's SSRF protection blocked the request to ${blocked.target ?? host}`,
			description:
				`${blocked.description ?? 'The address is in a blocked range.'} ` +
				'This n8n instance refuses private and internal addresses (N8N_SSRF_PROTECTION_ENABLED). If this host is trusted, an administrator can allow it with N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES.',
			itemIndex,
		},
	);
}

function parseBody(body: unknown): unknown {
	if (typeof body === 'string' && body.length > 0) {
		try {
			return JSON.parse(body);
		} catch {
			return body;
		}
	}
	return body;
}

/** The gateway's own message, when its error body carries one in a common place. */
export function gatewayMessage(body: unknown): string | undefined {
	const parsed = parseBody(body);
	if (typeof parsed === 'string') return parsed.trim().slice(0, 500) || undefined;
	if (!parsed || typeof parsed !== 'object') return undefined;
	const record = parsed as Record<string, unknown>;
	const nested = record.error;
	for (const candidate of [
		nested && typeof nested === 'object' ? (nested as Record<string, unknown>).message : nested,
		record.message,
		record.detail,
		record.msg,
		record.failReason,
	]) {
		if (typeof candidate === 'string' && candidate.trim()) return candidate.trim().slice(0, 500);
	}
	return undefined;
}

export function describeRequest(request: GatewayRequest): string {
	return `${request.method} ${request.path}`;
}

export function httpError(
	ctx: GatewayContext,
	request: GatewayRequest,
	response: IN8nHttpFullResponse,
	secrets: Array<string | undefined>,
	attempts: number,
	itemIndex: number,
	policy: RetryPolicy,
	hints: ErrorHints = {},
): NodeApiError {
	const status = response.statusCode;
	const fromGateway = redactSecrets(gatewayMessage(response.body), secrets);
	const where = describeRequest(request);
	let message: string;
	let description: string;
	if (status === 401 || status === 403) {
		message = `The gateway rejected the API key (HTTP ${status})`;
		description =
			'Check the API Key in the Media Gateway API credential: it must be a valid, active key for this gateway. ' +
			'Open the credential and use "Test" to confirm.';
	} else if (status === 404) {
		message = `The gateway has no ${where} (HTTP 404)`;
		description = hints.notFound ?? DEFAULT_NOT_FOUND;
	} else if (status === 429) {
		const wait = retryAfterMs(response.headers?.['retry-after']);
		message = 'The gateway is rate limiting requests (HTTP 429)';
		description =
			(attempts > 1 ? `Tried ${attempts} times without success. ` : '') +
			(wait !== undefined
				? `The gateway asks to wait ${Math.ceil(wait / 1000)} s${wait > policy.maxRetryAfterMs ? `, longer than this node waits (${Math.round(policy.maxRetryAfterMs / 1000)} s)` : ''}. `
				: '') +
			(hints.rateLimited ?? DEFAULT_RATE_LIMITED);
	} else if (status >= 500) {
		message = `The gateway failed to process ${where} (HTTP ${status})`;
		description = fromGateway
			? `Gateway said: ${fromGateway}`
			: 'This is a problem on the gateway side. Try again later; if it persists, contact the gateway provider.';
		if (request.method === 'POST' && status !== 503)
			description +=
				' The request was not repeated automatically, because the gateway may already have started a task for it.';
	} else if (status === 400 || status === 422) {
		message = `The gateway rejected the request ${where} (HTTP ${status})`;
		description = fromGateway
			? `Gateway said: ${fromGateway}. Check the node's parameters.`
			: "Check the node's parameters against the gateway's documentation.";
	} else {
		message = `The gateway answered ${where} with HTTP ${status}`;
		description = fromGateway
			? `Gateway said: ${fromGateway}`
			: 'Unexpected answer from the gateway.';
	}
	const errorResponse: JsonObject = { httpCode: String(status), message };
	if (fromGateway) errorResponse.gatewayMessage = fromGateway;
	return new NodeApiError(ctx.getNode(), errorResponse, {
		message,
		description,
		httpCode: String(status),
		itemIndex,
	});
}

export function connectionError(
	ctx: GatewayContext,
	request: GatewayRequest,
	credentials: GatewayCredentials,
	error: unknown,
	code: string,
	itemIndex: number,
): NodeApiError {
	const raw = redactSecrets((error as Error)?.message ?? String(error), [credentials.apiKey]);
	const host = safeHost(credentials.baseUrl);
	let message: string;
	let description: string;
	// n8n replaces a message that contains an error code (ECONNREFUSED, ...) with a generic text,
	// so the code goes into the description, where it helps whoever debugs the network.
	const detail = code ? ` (${code})` : '';
	if (NOT_SENT_CODES.has(code)) {
		message = `Could not reach the gateway at ${host}`;
		description = `Nothing was sent${detail}. Check the Base URL in the Media Gateway API credential and that this n8n instance can reach it (DNS, firewall, proxy).`;
	} else if (code === 'ETIMEDOUT' || code === 'ECONNABORTED' || code === 'ESOCKETTIMEDOUT') {
		message = `The gateway did not answer ${describeRequest(request)} in time`;
		description =
			request.method === 'POST'
				? `Timed out${detail}. The request was not repeated automatically, because the gateway may already have started a task for it. Check the gateway for a new task before running again.`
				: `Timed out${detail}. Try again later.`;
	} else {
		message = `The connection to the gateway failed during ${describeRequest(request)}`;
		description =
			request.method === 'POST'
				? `Connection lost${detail}. The request was not repeated automatically, because the gateway may already have received it. Check the gateway for a new task before running again.`
				: `Connection lost${detail}. Try again later.`;
	}
	return new NodeApiError(
		ctx.getNode(),
		{ message: raw ?? 'connection failed' },
		{ message, description, itemIndex },
	);
}

function safeHost(baseUrl: string): string {
	try {
		return new URL(baseUrl).host;
	} catch {
		return 'the configured Base URL';
	}
}
