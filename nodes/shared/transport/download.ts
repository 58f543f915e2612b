/**
 * Result files downloaded into n8n's binary store: streamed, bounded in size and time, recognised by
 * their first bytes, and fetched with the API key only at the Base URL's origin.
 */
import type {
	IBinaryData,
	IExecuteFunctions,
	IN8nHttpFullResponse,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isHttpUrl } from '../gateway/schemas';
import { readGatewayCredentials } from './credentials';
import { redactSecrets } from './redact';
import { destroyOnAbort, formatBytes } from './body';
import { redirectError, ssrfBlock, ssrfError } from './errors';
import { RedirectRefusedError, sendFollowingRedirects } from './redirects';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry';

/** What a result file may be, recognised by its first bytes, not by what the server claims. */
interface FileKind {
	mimeType: string;
	extension: string;
	family: 'image' | 'video' | 'audio';
	matches(head: Buffer): boolean;
}

const ascii = (head: Buffer, offset: number, text: string) =>
	head.length >= offset + text.length &&
	head.toString('latin1', offset, offset + text.length) === text;
/** ISO base media files (MP4, MOV, AVIF) start with a box of type `ftyp` whose brand says which. */
const ftypBrand = (head: Buffer) => (ascii(head, 4, 'ftyp') ? head.toString('latin1', 8, 12) : '');

const FILE_KINDS: FileKind[] = [
	{
		mimeType: 'image/png',
		extension: 'png',
		family: 'image',
		matches: (h) =>
			h.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
	},
	{
		mimeType: 'image/jpeg',
		extension: 'jpg',
		family: 'image',
		matches: (h) => h.length >= 3 && h[0] === 0xff && h[1] === 0xd8 && h[2] === 0xff,
	},
	{
		mimeType: 'image/webp',
		extension: 'webp',
		family: 'image',
		matches: (h) => ascii(h, 0, 'RIFF') && ascii(h, 8, 'WEBP'),
	},
	{
		mimeType: 'image/gif',
		extension: 'gif',
		family: 'image',
		matches: (h) => ascii(h, 0, 'GIF87a') || ascii(h, 0, 'GIF89a'),
	},
	{
		mimeType: 'image/avif',
		extension: 'avif',
		family: 'image',
		matches: (h) => ['avif', 'avis'].includes(ftypBrand(h)),
	},
	{
		mimeType: 'video/quicktime',
		extension: 'mov',
		family: 'video',
		matches: (h) => ftypBrand(h) === 'qt  ',
	},
	{
		mimeType: 'video/webm',
		extension: 'webm',
		family: 'video',
		matches: (h) => h.length >= 4 && h.readUInt32BE(0) === 0x1a45dfa3,
	},
	{
		mimeType: 'video/mp4',
		extension: 'mp4',
		family: 'video',
		matches: (h) => {
			const brand = ftypBrand(h);
			return brand !== '' && !['avif', 'avis', 'qt  ', 'M4A ', 'M4B '].includes(brand);
		},
	},
	{
		mimeType: 'audio/mpeg',
		extension: 'mp3',
		family: 'audio',
		matches: (h) =>
			ascii(h, 0, 'ID3') || (h.length >= 2 && h[0] === 0xff && (h[1] & 0xe0) === 0xe0),
	},
	{
		mimeType: 'audio/mp4',
		extension: 'm4a',
		family: 'audio',
		matches: (h) => ['M4A ', 'M4B '].includes(ftypBrand(h)),
	},
];
/** Enough bytes to recognise every kind above. */
const HEAD_BYTES = 16;

export function detectFileKind(head: Buffer): FileKind | undefined {
	return FILE_KINDS.find((kind) => kind.matches(head));
}

/** What the start of a refused file looks like, for the error message. */
function describeHead(head: Buffer): string {
	const text = head.toString('latin1').trimStart().toLowerCase();
	if (text.startsWith('<svg') || (text.startsWith('<?xml') && text.includes('svg')))
		return 'an SVG document';
	if (text.startsWith('<!doctype html') || text.startsWith('<html')) return 'an HTML page';
	if (text.startsWith('<')) return 'an XML or HTML document';
	if (text.startsWith('{') || text.startsWith('[')) return 'JSON text';
	if (head.length === 0) return 'an empty file';
	return 'a file of an unknown kind';
}

/**
 * A file name safe to hand to the next node (Write File, Google Drive, e-mail attachments): the
 * URL's last path segment reduced to letters, digits, `-`, `_` and `.`, no leading dot, at most 100
 * characters, and always the extension of what the file really is.
 */
export function safeFileName(url: string, fallbackBase: string, extension: string): string {
	let last = '';
	try {
		last = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
	} catch {
		last = '';
	}
	const clean = (text: string) =>
		text
			// Characters that cannot stay are dropped at the ends and become one `_` inside.
			.replace(/^[^A-Za-z0-9._-]+|[^A-Za-z0-9._-]+$/g, '')
			.replace(/[^A-Za-z0-9._-]+/g, '_')
			.replace(/\.{2,}/g, '.')
			.replace(/^[._-]+/, '')
			.slice(0, 100);
	const stem = clean(last.replace(/\.[A-Za-z0-9]{1,5}$/, '')) || clean(fallbackBase) || 'file';
	// Only trailing dots go (`name..mp4`); a task id may well end in `_` or `-`, and its file keeps it.
	return `${stem.replace(/\.+$/, '') || 'file'}.${extension}`;
}

export interface DownloadOptions {
	itemIndex: number;
	/** File name used when the URL has none. */
	fileNameBase: string;
	/** The type this operation produces, named in the error when the file is something else. */
	defaultMimeType: string;
	/** The kind of file this operation produces; anything else is refused. */
	expectedPrefix: 'image/' | 'video/' | 'audio/';
	/** Size and time limits of this download, as the caller read them from its options. */
	limits: DownloadLimits;
	/** Its request timeout caps the idle time of each hop (default: the default policy's). */
	retry?: RetryPolicy;
}

export interface DownloadLimits {
	maxMb: number;
	maxBytes: number;
	timeSeconds: number;
	timeMs: number;
}

/** A response body stream as n8n's helper returns it with `encoding: 'stream'` (a Node.js Readable). */
interface BodyStream {
	read(): Buffer | null;
	unshift(chunk: Buffer): void;
	on(event: string, listener: (...args: unknown[]) => void): unknown;
	off(event: string, listener: (...args: unknown[]) => void): unknown;
	readableEnded: boolean;
	destroy(error?: Error): void;
	/** Readable.prototype.map: a new stream of what `fn` returns, read one chunk at a time. */
	map(fn: (chunk: Buffer) => Buffer, options?: { concurrency?: number }): BodyStream;
}

/**
 * The first bytes of a stream, put back so the stream still yields everything. `ended` is true
 * when they are the whole body.
 */
async function peek(stream: BodyStream, bytes: number): Promise<{ head: Buffer; ended: boolean }> {
	return await new Promise((resolve, reject) => {
		const parts: Buffer[] = [];
		let size = 0;
		const finish = (ended: boolean) => {
			stream.off('readable', onReadable);
			stream.off('end', onEnd);
			stream.off('error', onError);
			stream.off('close', onClose);
			const head = Buffer.concat(parts);
			if (!ended && head.length > 0) stream.unshift(head);
			resolve({ head, ended });
		};
		const onReadable = () => {
			for (let chunk = stream.read(); chunk !== null; chunk = stream.read()) {
				parts.push(chunk);
				size += chunk.length;
				if (size >= bytes) return finish(false);
			}
		};
		const onEnd = () => finish(true);
		const onError = (error: unknown) => {
			stream.off('readable', onReadable);
			reject(error);
		};
		const onClose = () => {
			if (!stream.readableEnded)
				onError(new Error('The connection closed before the file arrived'));
		};
		stream.on('readable', onReadable);
		stream.on('end', onEnd);
		stream.on('error', onError);
		stream.on('close', onClose);
	});
}

type LimitHit = { kind: 'size'; bytes: number } | { kind: 'time' };

/** One download in progress: where from, within which limits, and how its failures read. */
class Download {
	readonly host: string;
	readonly family: FileKind['family'];
	readonly deadline: number;
	readonly timeLimit: AbortSignal;
	readonly cancel: AbortSignal | undefined;

	constructor(
		readonly ctx: IExecuteFunctions | IWebhookFunctions,
		readonly url: string,
		readonly options: DownloadOptions,
		readonly limits: DownloadLimits,
		readonly apiKey: string,
	) {
		this.host = new URL(url).host;
		this.family = options.expectedPrefix.slice(0, -1) as FileKind['family'];
		this.deadline = Date.now() + limits.timeMs;
		this.timeLimit = AbortSignal.timeout(limits.timeMs);
		this.cancel = (ctx as Partial<IExecuteFunctions>).getExecutionCancelSignal?.();
	}

	limitError(limit: LimitHit, cause?: unknown): NodeApiError {
		const { limits, host } = this;
		return new NodeApiError(
			this.ctx.getNode(),
			{ message: (cause as Error)?.message ?? 'limit reached' },
			{
				message:
					limit.kind === 'size'
						? `The file at ${host} is larger than the download limit of ${limits.maxMb} MB`
						: `The download from ${host} did not finish within the download time limit of ${limits.timeSeconds} s`,
				description:
					limit.kind === 'size'
						? `The download was stopped${limit.bytes > 0 ? ` at ${formatBytes(limit.bytes)}` : ' before it started (the server announced the size)'}. Raise Options → Max Download Size (MB), or turn off the download option and fetch the URL yourself.`
						: 'The download was stopped. Raise Options → Download Time Limit (Seconds), or turn off the download option and fetch the URL yourself.',
				itemIndex: this.options.itemIndex,
			},
		);
	}

	/** Whatever stopped the download, as an n8n error that names the host and, if one was hit, the limit. */
	failure(error: unknown, hit?: LimitHit): NodeApiError | NodeOperationError {
		const { ctx, host } = this;
		const { itemIndex } = this.options;
		if (this.cancel?.aborted)
			return new NodeOperationError(ctx.getNode(), 'The execution was cancelled', { itemIndex });
		if (error instanceof RedirectRefusedError) return redirectError(ctx, error, itemIndex);
		if (hit) return this.limitError(hit, error);
		if (this.timeLimit.aborted) return this.limitError({ kind: 'time' }, error);
		const blocked = ssrfBlock(error);
		if (blocked) return ssrfError(ctx, blocked, host, itemIndex);
		return new NodeApiError(
			ctx.getNode(),
			{ message: (error as Error)?.message ?? String(error) },
			{
				message: `Could not download the result from ${host}`,
				description:
					'The file host did not answer or broke off. Try again later, or turn off the download option and fetch the URL yourself.',
				itemIndex,
			},
		);
	}

	/** Checks the answer and its first bytes, then streams it into n8n's binary store within the limits. */
	async store(response: IN8nHttpFullResponse): Promise<IBinaryData> {
		const { ctx, host, limits, family, options } = this;
		const { itemIndex } = options;
		const body = response.body as BodyStream;
		if (response.statusCode < 200 || response.statusCode >= 300) {
			body?.destroy?.();
			throw new NodeApiError(
				ctx.getNode(),
				{ httpCode: String(response.statusCode), message: `HTTP ${response.statusCode}` },
				{
					message: `Could not download the result from ${host} (HTTP ${response.statusCode})`,
					description: `The file at ${redactSecrets(this.url.slice(0, 300), [this.apiKey])} could not be fetched; result URLs may expire. Run the node again, or turn off the download option.`,
					httpCode: String(response.statusCode),
					itemIndex,
				},
			);
		}
		const announced = Number(response.headers?.['content-length']);
		if (Number.isFinite(announced) && announced > limits.maxBytes) {
			body.destroy();
			throw this.limitError({ kind: 'size', bytes: 0 });
		}

		let head: Buffer;
		let ended: boolean;
		try {
			({ head, ended } = await peek(body, HEAD_BYTES));
		} catch (error) {
			throw this.failure(error);
		}
		const kind = detectFileKind(head);
		if (!kind || kind.family !== family) {
			body.destroy();
			const claimed = String(response.headers?.['content-type'] ?? 'no type')
				.split(';')[0]
				.trim();
			throw new NodeApiError(
				ctx.getNode(),
				{ message: `Unexpected file content (${claimed})` },
				{
					message: `The file at ${host} is not ${family === 'image' ? 'an image' : `a ${family}`} (${kind ? kind.mimeType : describeHead(head)})`,
					description: `This operation produces ${options.defaultMimeType} files (${FILE_KINDS.filter(
						(k) => k.family === family,
					)
						.map((k) => k.extension.toUpperCase())
						.join(
							', ',
						)} are accepted); the server said "${claimed}". The file was not stored. Check the result URL, or turn off the download option.`,
					itemIndex,
				},
			);
		}
		const fileName = safeFileName(this.url, options.fileNameBase, kind.extension);
		if (ended) return await ctx.helpers.prepareBinaryData(head, fileName, kind.mimeType);

		let received = 0;
		let hit: LimitHit | undefined;
		const counted = body.map(
			(chunk) => {
				received += chunk.length;
				if (received > limits.maxBytes) {
					hit = { kind: 'size', bytes: received };
					throw new Error(`More than ${limits.maxBytes} bytes`);
				}
				if (Date.now() > this.deadline) {
					hit = { kind: 'time' };
					throw new Error('Download time limit passed');
				}
				return chunk;
			},
			{ concurrency: 1 },
		);
		try {
			return await ctx.helpers.prepareBinaryData(
				counted as unknown as Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0],
				fileName,
				kind.mimeType,
			);
		} catch (error) {
			body.destroy();
			throw this.failure(error, hit);
		}
	}
}

/**
 * Downloads a result file into n8n's binary store: streamed (a video is not held in memory), at
 * most the node's size limit (stopped as soon as it is passed), within its time limit, and only
 * when its first bytes show the kind of file the operation produces. The API key goes only to the
 * Base URL's origin, through any redirects; every hop passes n8n's request helper, so the
 * instance's proxy and SSRF protection settings apply.
 */
export async function downloadToBinary(
	ctx: IExecuteFunctions | IWebhookFunctions,
	url: string,
	options: DownloadOptions,
): Promise<IBinaryData> {
	const { itemIndex } = options;
	if (!isHttpUrl(url)) {
		throw new NodeOperationError(
			ctx.getNode(),
			'The gateway returned no downloadable URL for this result',
			{
				itemIndex,
				description: `Got "${String(url).slice(0, 200)}". Turn off the download option to keep the raw result.`,
			},
		);
	}
	const { limits } = options;
	const retry = options.retry ?? DEFAULT_RETRY_POLICY;
	const credentials = await readGatewayCredentials(ctx, itemIndex);
	const download = new Download(ctx, url, options, limits, credentials.apiKey);
	let response: IN8nHttpFullResponse;
	try {
		response = await sendFollowingRedirects(
			ctx,
			credentials,
			{
				method: 'GET',
				url,
				encoding: 'stream',
				// An idle limit per hop; the whole download is bounded by the time limit.
				timeout: Math.min(retry.requestTimeoutMs, limits.timeMs),
				abortSignal: download.cancel
					? AbortSignal.any([download.cancel, download.timeLimit])
					: download.timeLimit,
			},
			{ crossOrigin: 'followWithoutKey' },
		);
	} catch (error) {
		throw download.failure(error);
	}
	// Bounds the body whichever helper fetched it (the authenticated one drops our abort signal).
	const release = destroyOnAbort(response.body, download.timeLimit);
	try {
		return await download.store(response);
	} finally {
		release();
	}
}
