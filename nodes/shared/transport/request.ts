/**
 * The only code that talks to the gateway. Every node calls `gatewayRequest`; nothing else builds
 * gateway URLs, sends the key, retries or turns HTTP failures into n8n errors. What the transport
 * cannot know (which endpoint, how to retry, what a 404 or 429 means for this caller) is passed in.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { cancellableSleep, throwIfCancelled } from '../execution/cancellation';
import {
	formatBytes,
	MAX_RESPONSE_BYTES,
	readBoundedText,
	ResponseTooLargeError,
	sanitiseAnswer,
} from './body';
import { type GatewayCredentials, readGatewayCredentials } from './credentials';
import {
	connectionError,
	describeRequest,
	errorCode,
	type ErrorHints,
	httpError,
	MAYBE_SENT_CODES,
	NOT_SENT_CODES,
	redirectError,
	ssrfBlock,
	ssrfError,
} from './errors';
import { RedirectRefusedError, sendFollowingRedirects } from './redirects';
import {
	backoffMs,
	DEFAULT_RETRY_POLICY,
	retryAfterJitterMs,
	retryAfterMs,
	type RetryPolicy,
} from './retry';

export type GatewayContext = IExecuteFunctions | IWebhookFunctions;

export interface GatewayRequest {
	method: 'GET' | 'POST';
	/** Path relative to the base URL, starting with `/`, e.g. `/v1/videos`. */
	path: string;
	body?: IDataObject;
	itemIndex?: number;
	/** How to retry (default: `DEFAULT_RETRY_POLICY`). */
	retry?: RetryPolicy;
	/** What this caller's 404 and 429 mean to the user. */
	hints?: ErrorHints;
}

/** The caller-supplied part of a request, as an item's run passes it on. */
export type TransportOptions = Pick<GatewayRequest, 'retry' | 'hints'>;

/**
 * Joins the Base URL and a path; undefined for a path that URL normalisation would change (a task
 * id of `.` or `..` would otherwise turn `GET /v1/videos/..` into `GET /v1/`).
 */
export function gatewayUrl(credentials: GatewayCredentials, path: string): string | undefined {
	const relative = path.startsWith('/') ? path : `/${path}`;
	const joined = `${credentials.baseUrl}${relative}`;
	const expectedPath = `${new URL(credentials.baseUrl).pathname.replace(/\/+$/, '')}${relative}`;
	return new URL(joined).pathname === expectedPath ? joined : undefined;
}

/** The Base URL as it may appear in a message: no user name or password. */
export function displayBaseUrl(baseUrl: string): string {
	try {
		const url = new URL(baseUrl);
		url.username = '';
		url.password = '';
		return url.toString().replace(/\/+$/, '');
	} catch {
		return 'the configured Base URL';
	}
}

/**
 * Sends one JSON request to the gateway and returns its parsed JSON object.
 * Retries 429 and 503 (which mean "not processed"), connection failures that happened before the
 * request was sent, and any failure of a GET; a POST that may have reached the gateway is never
 * repeated silently, because repeating it could create and bill a second task.
 */
export async function gatewayRequest<T = IDataObject>(
	ctx: GatewayContext,
	request: GatewayRequest,
): Promise<T> {
	const itemIndex = request.itemIndex ?? 0;
	const retryPolicy = request.retry ?? DEFAULT_RETRY_POLICY;
	const credentials = await readGatewayCredentials(ctx, itemIndex);
	const url = gatewayUrl(credentials, request.path);
	if (!url) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Refused to send ${request.method} ${request.path}`,
			{
				itemIndex,
				description:
					'A path segment such as "." or ".." would make the request reach another endpoint of the gateway. Check the Task ID.',
			},
		);
	}
	const options: IHttpRequestOptions = {
		method: request.method,
		url,
		headers: { Accept: 'application/json' },
		// Read as a stream so the body size is bounded and its parsing is ours, not a silent fallback to text.
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: retryPolicy.requestTimeoutMs,
	};
	if (request.body !== undefined) {
		options.body = request.body;
		options.headers!['Content-Type'] = 'application/json';
	}
	const cancelSignal = cancelSignalOf(ctx);
	// Values that must never come back out of this request: the key, and the resume URL sent as notifyHook.
	const secrets = [
		credentials.apiKey,
		typeof request.body?.notifyHook === 'string' ? request.body.notifyHook : undefined,
	];

	for (let attempt = 1; ; attempt++) {
		throwIfCancelled(ctx, cancelSignal, itemIndex);
		const attemptLimit = AbortSignal.timeout(retryPolicy.requestTimeoutMs);
		const signal = cancelSignal ? AbortSignal.any([cancelSignal, attemptLimit]) : attemptLimit;
		let response: IN8nHttpFullResponse;
		let text: string;
		try {
			response = await sendFollowingRedirects(
				ctx,
				credentials,
				{ ...options, abortSignal: signal },
				{
					crossOrigin: 'refuse',
				},
			);
			text = await readBoundedText(response.body, MAX_RESPONSE_BYTES, signal);
		} catch (error) {
			throwIfCancelled(ctx, cancelSignal, itemIndex);
			if (error instanceof RedirectRefusedError) throw redirectError(ctx, error, itemIndex);
			if (error instanceof ResponseTooLargeError) {
				throw new NodeApiError(
					ctx.getNode(),
					{ message: error.message },
					{
						message: `The gateway at ${displayBaseUrl(credentials.baseUrl)} sent an answer larger than ${formatBytes(MAX_RESPONSE_BYTES)} to ${describeRequest(request)}`,
						description:
							'Its answers are small JSON documents. Check the Base URL in the Media Gateway API credential: it must point at the gateway API.',
						itemIndex,
					},
				);
			}
			const code = attemptLimit.aborted ? 'ETIMEDOUT' : errorCode(error);
			const blocked = ssrfBlock(error);
			if (blocked) throw ssrfError(ctx, blocked, new URL(url).host, itemIndex);
			const retryable =
				NOT_SENT_CODES.has(code) || (request.method === 'GET' && MAYBE_SENT_CODES.has(code));
			if (retryable && attempt < retryPolicy.maxAttempts) {
				await cancellableSleep(ctx, backoffMs(attempt, retryPolicy), cancelSignal, itemIndex);
				continue;
			}
			throw connectionError(ctx, request, credentials, error, code, itemIndex);
		}

		const status = response.statusCode;
		if (status >= 200 && status < 300) {
			return sanitiseAnswer(
				parseSuccess(ctx, request, credentials, response, text, itemIndex),
				secrets,
			) as T;
		}

		// 429 and 503 mean "not processed"; any server error may be retried for a GET, which changes nothing.
		const retryable =
			status === 429 || status === 503 || (request.method === 'GET' && status >= 500);
		if (retryable && attempt < retryPolicy.maxAttempts) {
			const retryAfter = retryAfterMs(response.headers?.['retry-after']);
			if (retryAfter === undefined || retryAfter <= retryPolicy.maxRetryAfterMs) {
				const delay =
					retryAfter === undefined
						? backoffMs(attempt, retryPolicy)
						: retryAfter + retryAfterJitterMs(retryAfter);
				await cancellableSleep(ctx, delay, cancelSignal, itemIndex);
				continue;
			}
		}
		throw httpError(
			ctx,
			request,
			{ ...response, body: text },
			secrets,
			attempt,
			itemIndex,
			retryPolicy,
			request.hints,
		);
	}
}

/**
 * A success answer must be a JSON object: an HTML page behind a 200 (a proxy's login page, a
 * wrong Base URL) is an error, not a result to spread into items or to poll until a timeout.
 */
function parseSuccess(
	ctx: GatewayContext,
	request: GatewayRequest,
	credentials: GatewayCredentials,
	response: IN8nHttpFullResponse,
	text: string,
	itemIndex: number,
): IDataObject {
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		parsed = undefined;
	}
	if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as IDataObject;
	const contentType = String(response.headers?.['content-type'] ?? 'no content type')
		.split(';')[0]
		.trim();
	const what =
		parsed === undefined
			? `something that is not JSON (${contentType}${text.length === 0 ? ', empty' : ''})`
			: 'JSON that is not an object';
	throw new NodeApiError(
		ctx.getNode(),
		{ message: `HTTP ${response.statusCode} with ${what}` },
		{
			message: `The gateway at ${displayBaseUrl(credentials.baseUrl)} answered ${describeRequest(request)} with ${what}`,
			description:
				'Check the Base URL in the Media Gateway API credential: it must be the gateway API root (e.g. https://gateway.example.com), not a web page, a login page of a proxy or a path below /v1.' +
				(request.method === 'POST'
					? ' The request was not repeated: the gateway may have started a task for it.'
					: ''),
			httpCode: String(response.statusCode),
			itemIndex,
		},
	);
}

function cancelSignalOf(ctx: GatewayContext): AbortSignal | undefined {
	const candidate = ctx as Partial<IExecuteFunctions>;
	return typeof candidate.getExecutionCancelSignal === 'function'
		? candidate.getExecutionCancelSignal()
		: undefined;
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
