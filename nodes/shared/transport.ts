/**
 * The only code that talks to the gateway. Every node calls `gatewayRequest`; nothing else builds
 * gateway URLs, sends the key, retries or turns HTTP failures into n8n errors.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_TYPE, type GatewayCredentials, readGatewayCredentials } from './credentials';
import { redactSecrets } from './redact';
import { cancellableSleep, throwIfCancelled } from './sleep';

export type GatewayContext = IExecuteFunctions | IWebhookFunctions;

export interface GatewayRequest {
	method: 'GET' | 'POST';
	/** Path relative to the base URL, starting with `/`, e.g. `/v1/videos`. */
	path: string;
	body?: IDataObject;
	itemIndex?: number;
}

/** Tuning knobs, exported so tests can shorten the waits. */
export const retryPolicy = {
	/** Total attempts, the first one included. */
	maxAttempts: 4,
	baseDelayMs: 500,
	maxDelayMs: 8_000,
	/** The longest Retry-After we are willing to sleep through; a longer one fails fast with advice. */
	maxRetryAfterMs: 30_000,
	requestTimeoutMs: 60_000,
};

/** Connection failures that happen before any byte of the request reached the gateway. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Failures after the request may have been received: only an idempotent GET may repeat it. */
const MAYBE_SENT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'ESOCKETTIMEDOUT']);

export function gatewayUrl(credentials: GatewayCredentials, path: string): string {
	return `${credentials.baseUrl}${path.startsWith('/') ? path : `/${path}`}`;
}

/**
 * Sends one JSON request to the gateway and returns its parsed JSON body.
 * Retries 429 and 503 (which mean "not processed"), connection failures that happened before the
 * request was sent, and any failure of a GET; a POST that may have reached the gateway is never
 * repeated silently, because repeating it could create and bill a second task.
 */
export async function gatewayRequest<T = IDataObject>(
	ctx: GatewayContext,
	request: GatewayRequest,
): Promise<T> {
	const itemIndex = request.itemIndex ?? 0;
	const credentials = await readGatewayCredentials(ctx, itemIndex);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: gatewayUrl(credentials, request.path),
		headers: { Accept: 'application/json' },
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: retryPolicy.requestTimeoutMs,
	};
	if (request.body !== undefined) {
		options.body = request.body;
		options.headers!['Content-Type'] = 'application/json';
	}
	const signal = cancelSignalOf(ctx);
	if (signal) options.abortSignal = signal;

	for (let attempt = 1; ; attempt++) {
		throwIfCancelled(ctx, signal, itemIndex);
		let response: IN8nHttpFullResponse;
		try {
			response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_TYPE,
				options,
			)) as IN8nHttpFullResponse;
		} catch (error) {
			throwIfCancelled(ctx, signal, itemIndex);
			const code = errorCode(error);
			const retryable =
				NOT_SENT_CODES.has(code) || (request.method === 'GET' && MAYBE_SENT_CODES.has(code));
			if (retryable && attempt < retryPolicy.maxAttempts) {
				await cancellableSleep(ctx, backoffMs(attempt), signal, itemIndex);
				continue;
			}
			throw connectionError(ctx, request, credentials, error, code, itemIndex);
		}

		const status = response.statusCode;
		if (status >= 200 && status < 300) return parseBody(response.body) as T;

		// 429 and 503 mean "not processed"; any server error may be retried for a GET, which changes nothing.
		const retryable = status === 429 || status === 503 || (request.method === 'GET' && status >= 500);
		if (retryable && attempt < retryPolicy.maxAttempts) {
			const retryAfter = retryAfterMs(response.headers?.['retry-after']);
			if (retryAfter === undefined || retryAfter <= retryPolicy.maxRetryAfterMs) {
				await cancellableSleep(ctx, retryAfter ?? backoffMs(attempt), signal, itemIndex);
				continue;
			}
		}
		throw httpError(ctx, request, credentials, response, itemIndex);
	}
}

function cancelSignalOf(ctx: GatewayContext): AbortSignal | undefined {
	const candidate = ctx as Partial<IExecuteFunctions>;
	return typeof candidate.getExecutionCancelSignal === 'function'
		? candidate.getExecutionCancelSignal()
		: undefined;
}

/** Exponential backoff with full jitter, so parallel items do not retry in lock-step. */
export function backoffMs(attempt: number): number {
	const ceiling = Math.min(retryPolicy.maxDelayMs, retryPolicy.baseDelayMs * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/** Retry-After is either delta-seconds or an HTTP date. */
export function retryAfterMs(header: unknown): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - Date.now());
}

function errorCode(error: unknown): string {
	const candidate = error as { code?: unknown; cause?: { code?: unknown } };
	const code = candidate?.code ?? candidate?.cause?.code;
	return typeof code === 'string' ? code : '';
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

function describeRequest(request: GatewayRequest): string {
	return `${request.method} ${request.path}`;
}

function httpError(
	ctx: GatewayContext,
	request: GatewayRequest,
	credentials: GatewayCredentials,
	response: IN8nHttpFullResponse,
	itemIndex: number,
): NodeApiError {
	const status = response.statusCode;
	const fromGateway = redactSecrets(gatewayMessage(response.body), [credentials.apiKey]);
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
		description =
			request.method === 'GET' && request.path.startsWith('/v1/videos/')
				? 'Check the Task ID: the gateway does not know this task. If every request fails like this, check the Base URL in the Media Gateway API credential.'
				: 'Check the Base URL in the Media Gateway API credential: it must be the gateway root (without /v1 or /imgmodel), e.g. https://gateway.example.com.';
	} else if (status === 429) {
		const wait = retryAfterMs(response.headers?.['retry-after']);
		message = 'The gateway is rate limiting requests (HTTP 429)';
		description =
			`Retried ${retryPolicy.maxAttempts - 1} times without success. ` +
			(wait !== undefined ? `The gateway asks to wait ${Math.ceil(wait / 1000)} s. ` : '') +
			'Lower the Concurrency option, add a Wait node between batches, or try again later.';
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
		description = fromGateway ? `Gateway said: ${fromGateway}` : 'Unexpected answer from the gateway.';
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

function connectionError(
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
		description =
			`Nothing was sent${detail}. Check the Base URL in the Media Gateway API credential and that this n8n instance can reach it (DNS, firewall, proxy).`;
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
	return new NodeApiError(ctx.getNode(), { message: raw ?? 'connection failed' }, { message, description, itemIndex });
}

function safeHost(baseUrl: string): string {
	try {
		return new URL(baseUrl).host;
	} catch {
		return 'the configured Base URL';
	}
}

/** Checks a string parameter is an absolute http(s) URL; names the parameter when it is not. */
export function assertHttpUrl(
	ctx: GatewayContext,
	value: string,
	label: string,
	itemIndex: number,
): string {
	let parsed: URL | undefined;
	try {
		parsed = new URL(value);
	} catch {
		parsed = undefined;
	}
	if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
		throw new NodeOperationError(ctx.getNode(), `${label} must be an http:// or https:// URL`, {
			itemIndex,
			description: `Got "${value.slice(0, 200)}". Enter a full URL such as https://example.com/path.`,
		});
	}
	return value;
}
