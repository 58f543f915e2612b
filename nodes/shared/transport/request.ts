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
import { cancellableSleep, throwIfCancelled } from '../execution/cancellation';

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
	/** Idle limit and total limit of one attempt, answer body included. */
	requestTimeoutMs: 60_000,
};

/** The gateway answers with small JSON documents; anything bigger is not an answer we can use. */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** Redirects followed for one request; a CDN hand-over needs one or two. */
export const MAX_REDIRECTS = 5;

/** Connection failures that happen before any byte of the request reached the gateway. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Failures after the request may have been received: only an idempotent GET may repeat it. */
const MAYBE_SENT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'ESOCKETTIMEDOUT']);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

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
	const credentials = await readGatewayCredentials(ctx, itemIndex);
	const url = gatewayUrl(credentials, request.path);
	if (!url) {
		throw new NodeOperationError(ctx.getNode(), `Refused to send ${request.method} ${request.path}`, {
			itemIndex,
			description:
				'A path segment such as "." or ".." would make the request reach another endpoint of the gateway. Check the Task ID.',
		});
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
	const secrets = [credentials.apiKey, typeof request.body?.notifyHook === 'string' ? request.body.notifyHook : undefined];

	for (let attempt = 1; ; attempt++) {
		throwIfCancelled(ctx, cancelSignal, itemIndex);
		const attemptLimit = AbortSignal.timeout(retryPolicy.requestTimeoutMs);
		const signal = cancelSignal ? AbortSignal.any([cancelSignal, attemptLimit]) : attemptLimit;
		let response: IN8nHttpFullResponse;
		let text: string;
		try {
			response = await sendFollowingRedirects(ctx, credentials, { ...options, abortSignal: signal }, {
				crossOrigin: 'refuse',
			});
			text = await readBoundedText(response.body, MAX_RESPONSE_BYTES, signal);
		} catch (error) {
			throwIfCancelled(ctx, cancelSignal, itemIndex);
			if (error instanceof RedirectRefusedError) throw redirectError(ctx, error, itemIndex);
			if (error instanceof ResponseTooLargeError) {
				throw new NodeApiError(ctx.getNode(), { message: error.message }, {
					message: `The gateway at ${displayBaseUrl(credentials.baseUrl)} sent an answer larger than ${formatBytes(MAX_RESPONSE_BYTES)} to ${describeRequest(request)}`,
					description: 'Its answers are small JSON documents. Check the Base URL in the Media Gateway API credential: it must point at the gateway API.',
					itemIndex,
				});
			}
			const code = attemptLimit.aborted ? 'ETIMEDOUT' : errorCode(error);
			const blocked = ssrfBlock(error);
			if (blocked) throw ssrfError(ctx, blocked, new URL(url).host, itemIndex);
			const retryable =
				NOT_SENT_CODES.has(code) || (request.method === 'GET' && MAYBE_SENT_CODES.has(code));
			if (retryable && attempt < retryPolicy.maxAttempts) {
				await cancellableSleep(ctx, backoffMs(attempt), cancelSignal, itemIndex);
				continue;
			}
			throw connectionError(ctx, request, credentials, error, code, itemIndex);
		}

		const status = response.statusCode;
		if (status >= 200 && status < 300) {
			return sanitiseAnswer(parseSuccess(ctx, request, credentials, response, text, itemIndex), secrets) as T;
		}

		// 429 and 503 mean "not processed"; any server error may be retried for a GET, which changes nothing.
		const retryable = status === 429 || status === 503 || (request.method === 'GET' && status >= 500);
		if (retryable && attempt < retryPolicy.maxAttempts) {
			const retryAfter = retryAfterMs(response.headers?.['retry-after']);
			if (retryAfter === undefined || retryAfter <= retryPolicy.maxRetryAfterMs) {
				const delay = retryAfter === undefined ? backoffMs(attempt) : retryAfter + retryAfterJitterMs(retryAfter);
				await cancellableSleep(ctx, delay, cancelSignal, itemIndex);
				continue;
			}
		}
		throw httpError(ctx, request, { ...response, body: text }, secrets, attempt, itemIndex);
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
	const contentType = String(response.headers?.['content-type'] ?? 'no content type').split(';')[0].trim();
	const what = parsed === undefined ? `something that is not JSON (${contentType}${text.length === 0 ? ', empty' : ''})` : 'JSON that is not an object';
	throw new NodeApiError(
		ctx.getNode(),
		{ message: `HTTP ${response.statusCode} with ${what}` },
		{
			message: `The gateway at ${displayBaseUrl(credentials.baseUrl)} answered ${describeRequest(request)} with ${what}`,
			description:
				'Check the Base URL in the Media Gateway API credential: it must be the gateway API root (e.g. https://gateway.example.com), not a web page, a login page of a proxy or a path below /v1.' +
				(request.method === 'POST' ? ' The request was not repeated: the gateway may have started a task for it.' : ''),
			httpCode: String(response.statusCode),
			itemIndex,
		},
	);
}

export interface RedirectPolicy {
	/**
	 * What a redirect to another origin than the Base URL's does: API calls refuse it (the key would
	 * be needed there); downloads follow it without the key (a result file handed over to a CDN).
	 */
	crossOrigin: 'refuse' | 'followWithoutKey';
}

/** A redirect that was not followed, and why. */
export class RedirectRefusedError extends Error {
	constructor(
		readonly reason: 'notHttp' | 'tooMany' | 'otherOrigin' | 'changesMethod',
		readonly status: number,
		readonly method: string,
		readonly from: URL,
		readonly to: string,
		readonly keyOrigin: string,
	) {
		super(`Redirect from ${from.origin} to ${to.slice(0, 100)} not followed (${reason})`);
	}
}

/** The n8n error for a redirect that was not followed: names where it pointed and what to fix. */
export function redirectError(ctx: GatewayContext, refused: RedirectRefusedError, itemIndex: number): NodeApiError {
	const where = `${refused.method} ${refused.from.host}${refused.from.pathname}`;
	let target: string;
	try {
		target = new URL(refused.to).origin;
	} catch {
		target = refused.to.slice(0, 100);
	}
	const texts: Record<RedirectRefusedError['reason'], [string, string]> = {
		notHttp: [`${where} redirected to an address that is not http(s)`, 'The redirect was not followed.'],
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
	return new NodeApiError(ctx.getNode(), { message: refused.message }, {
		message,
		description,
		httpCode: String(refused.status),
		itemIndex,
	});
}

/**
 * Sends a request and follows redirects one hop at a time, deciding per hop whether the API key
 * goes along: only to the Base URL's origin (scheme, host and port), never elsewhere, however many
 * hops there are. n8n's own redirect following puts `Authorization` back on every hop unless told
 * otherwise, and even then keeps it for a subdomain or an http-to-https hop of the same host
 * (follow-redirects' rule), on every n8n line; so n8n follows nothing here. Every hop goes through
 * n8n's request helpers, so its proxy and SSRF settings apply to each one. Throws
 * `RedirectRefusedError` for a redirect it does not follow, and whatever n8n's helper throws.
 */
export async function sendFollowingRedirects(
	ctx: GatewayContext,
	credentials: GatewayCredentials,
	options: IHttpRequestOptions,
	policy: RedirectPolicy,
): Promise<IN8nHttpFullResponse> {
	const keyOrigin = new URL(credentials.baseUrl).origin;
	let url = options.url;
	for (let redirects = 0; ; redirects++) {
		// A fresh object per hop: n8n's credential authentication writes the header into the options
		// it is given, and a reused object would carry the key on to the next origin.
		const hop: IHttpRequestOptions = {
			...options,
			url,
			headers: { ...options.headers },
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
		};
		const target = new URL(url);
		const response = (target.origin === keyOrigin
			? await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, hop)
			: await ctx.helpers.httpRequest(hop)) as IN8nHttpFullResponse;
		const location = headerValue(response.headers?.location);
		if (!REDIRECT_STATUSES.has(response.statusCode) || !location) return response;
		discardBody(response.body);

		const method = (hop.method ?? 'GET').toUpperCase();
		const refuse = (reason: RedirectRefusedError['reason']) =>
			new RedirectRefusedError(reason, response.statusCode, method, target, location, keyOrigin);
		let next: URL | undefined;
		try {
			next = new URL(location, target);
		} catch {
			next = undefined;
		}
		if (!next || (next.protocol !== 'http:' && next.protocol !== 'https:')) throw refuse('notHttp');
		if (redirects >= MAX_REDIRECTS) throw refuse('tooMany');
		if (next.origin !== keyOrigin && policy.crossOrigin === 'refuse') throw refuse('otherOrigin');
		// A 301/302/303 turns a POST into a GET, which would read instead of create.
		if (method !== 'GET' && response.statusCode !== 307 && response.statusCode !== 308) throw refuse('changesMethod');
		url = next.toString();
	}
}

function headerValue(value: unknown): string | undefined {
	const first = Array.isArray(value) ? value[0] : value;
	return typeof first === 'string' && first.length > 0 ? first : undefined;
}

/** A readable stream as n8n's helper returns it with `encoding: 'stream'`. */
export interface ResponseStream extends AsyncIterable<Buffer | string> {
	destroy(error?: Error): void;
}

function discardBody(body: unknown): void {
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
export async function readBoundedText(body: unknown, limit: number, signal?: AbortSignal): Promise<string> {
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
export function sanitiseAnswer(value: unknown, secrets: Array<string | undefined>, depth = 0): unknown {
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

/**
 * Added to a Retry-After wait, never taken from it: items told to wait the same time spread over
 * up to a fifth of it (at least 100 ms, at most 2 s) instead of returning at the same instant.
 */
export function retryAfterJitterMs(retryAfter: number): number {
	return Math.round(Math.random() * Math.min(2_000, Math.max(100, retryAfter / 5)));
}

const DAY = '(Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** RFC 9110 5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must accept. */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

function utc(year: number, month: string, day: number, hours: number, minutes: number, seconds: number): number | undefined {
	if (day < 1 || day > 31 || hours > 23 || minutes > 59 || seconds > 60) return undefined;
	const time = Date.UTC(year, MONTHS.indexOf(month), day, hours, minutes, seconds);
	// Date.UTC rolls 31 Feb over into March; such a date is not a date.
	return new Date(time).getUTCDate() === day ? time : undefined;
}

/** An HTTP-date (RFC 9110 5.6.7) as epoch milliseconds, or undefined when the text is not one. */
export function parseHttpDate(text: string): number | undefined {
	let match = IMF_FIXDATE.exec(text);
	if (match) return utc(Number(match[4]), match[3], Number(match[2]), Number(match[5]), Number(match[6]), Number(match[7]));
	match = RFC850_DATE.exec(text);
	if (match) {
		// Two-digit years: RFC 9110 says a date more than 50 years ahead is in the past century.
		const nowYear = new Date().getUTCFullYear();
		let year = Math.floor(nowYear / 100) * 100 + Number(match[4]);
		if (year > nowYear + 50) year -= 100;
		return utc(year, match[3], Number(match[2]), Number(match[5]), Number(match[6]), Number(match[7]));
	}
	match = ASCTIME_DATE.exec(text);
	if (match) return utc(Number(match[7]), match[2], Number(match[3].trim()), Number(match[4]), Number(match[5]), Number(match[6]));
	return undefined;
}

/**
 * Retry-After as RFC 9110 10.2.3 defines it: delay-seconds (digits only) or an HTTP-date. Anything
 * else (`-1`, `+5`, `1.5`, `soon`) is ignored, so the normal backoff applies instead of a date that
 * a lenient parser would read into the past.
 */
export function retryAfterMs(header: unknown): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+$/.test(text)) return Number(text) * 1000;
	const date = parseHttpDate(text);
	return date === undefined ? undefined : Math.max(0, date - Date.now());
}

function errorCode(error: unknown): string {
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
	let current = error as { name?: unknown; description?: unknown; cause?: unknown; hostname?: unknown; ip?: unknown } | undefined;
	for (let depth = 0; current && depth < 5; depth++) {
		if (current.name === 'SsrfBlockedIpError' || current.name === 'SsrfBlockedHostnameError') {
			const target = [current.hostname, current.ip].find((value): value is string => typeof value === 'string' && value !== '');
			return { description: typeof current.description === 'string' ? current.description : undefined, target };
		}
		current = current.cause as typeof current;
	}
	return undefined;
}

export function ssrfError(ctx: GatewayContext, blocked: SsrfBlock, host: string, itemIndex: number): NodeApiError {
	return new NodeApiError(ctx.getNode(), { message: 'Blocked by SSRF protection' }, {
		message: `n8n's SSRF protection blocked the request to ${blocked.target ?? host}`,
		description:
			`${blocked.description ?? 'The address is in a blocked range.'} ` +
			'This n8n instance refuses private and internal addresses (N8N_SSRF_PROTECTION_ENABLED). If this host is trusted, an administrator can allow it with N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES.',
		itemIndex,
	});
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
	response: IN8nHttpFullResponse,
	secrets: Array<string | undefined>,
	attempts: number,
	itemIndex: number,
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
		description =
			request.method === 'GET' && request.path.startsWith('/v1/videos/')
				? 'Check the Task ID: the gateway does not know this task. If every request fails like this, check the Base URL in the Media Gateway API credential.'
				: 'Check the Base URL in the Media Gateway API credential: it must be the gateway root (without /v1 or /imgmodel), e.g. https://gateway.example.com.';
	} else if (status === 429) {
		const wait = retryAfterMs(response.headers?.['retry-after']);
		message = 'The gateway is rate limiting requests (HTTP 429)';
		description =
			(attempts > 1 ? `Tried ${attempts} times without success. ` : '') +
			(wait !== undefined
				? `The gateway asks to wait ${Math.ceil(wait / 1000)} s${wait > retryPolicy.maxRetryAfterMs ? `, longer than this node waits (${Math.round(retryPolicy.maxRetryAfterMs / 1000)} s)` : ''}. `
				: '') +
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
