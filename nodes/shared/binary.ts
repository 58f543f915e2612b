/**
 * Binary data in and out: images taken from a URL, a base64 / data-URI string or a binary field of
 * the input item, and results downloaded into n8n's binary store.
 */
import type {
	IBinaryData,
	IDisplayOptions,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INodeProperties,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_TYPE, readGatewayCredentials } from './credentials';
import { isHttpUrl } from './schemas';
import { retryPolicy } from './transport';

export type ImageSource = 'binary' | 'url' | 'base64' | 'none';

interface ImageInputOptions {
	/** Parameter name prefix, e.g. `image` or `mask`. */
	name: string;
	displayName: string;
	show: IDisplayOptions['show'];
	optional?: boolean;
	description?: string;
}

/** The parameters of one image input: where the image comes from, and the value for that source. */
export function imageInputProperties(options: ImageInputOptions): INodeProperties[] {
	const { name, displayName, show, optional } = options;
	const sources = [
		{ name: 'Binary Field', value: 'binary', description: 'A binary field of the input item, e.g. from Read File or HTTP Request' },
		{ name: 'URL', value: 'url', description: 'A public http(s) URL the gateway can fetch' },
		{ name: 'Base64 / Data URI', value: 'base64', description: 'Base64 data, or a data URI (data:image/png;base64,...)' },
	];
	if (optional) sources.unshift({ name: 'None', value: 'none', description: `No ${displayName.toLowerCase()}` });
	const sourceName = `${name}Source`;
	const withSource = (value: string): IDisplayOptions => ({ show: { ...show, [sourceName]: [value] } });
	const source: INodeProperties = {
		displayName: `${displayName} Source`,
		name: sourceName,
		type: 'options',
		options: sources,
		default: 'binary',
		displayOptions: { show },
		description: options.description ?? `Where the ${displayName.toLowerCase()} comes from`,
	};
	return [
		// An optional input (e.g. a mask) starts at None, so the request carries none until one is chosen.
		optional ? { ...source, default: 'none' } : source,
		{
			displayName: `${displayName} Binary Field`,
			name: `${name}BinaryField`,
			type: 'string',
			default: 'data',
			required: true,
			displayOptions: withSource('binary'),
			hint: 'The name of the binary field of the input item that holds the image',
			description: 'Sent to the gateway as a data URI',
		},
		{
			displayName: `${displayName} URL`,
			name: `${name}Url`,
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://example.com/picture.png',
			displayOptions: withSource('url'),
		},
		{
			displayName: `${displayName} Base64`,
			name: `${name}Base64`,
			type: 'string',
			typeOptions: { rows: 2 },
			default: '',
			required: true,
			placeholder: 'data:image/png;base64,iVBORw0KGgo...',
			displayOptions: withSource('base64'),
		},
	];
}

/** Reads one image input and returns what the gateway expects: a URL or base64 / data-URI text. */
export async function readImageInput(
	ctx: IExecuteFunctions,
	itemIndex: number,
	name: string,
	displayName: string,
): Promise<string | undefined> {
	const source = ctx.getNodeParameter(`${name}Source`, itemIndex, 'binary') as ImageSource;
	switch (source) {
		case 'none':
			return undefined;
		case 'url': {
			const url = String(ctx.getNodeParameter(`${name}Url`, itemIndex, '') ?? '').trim();
			if (!isHttpUrl(url)) {
				throw new NodeOperationError(ctx.getNode(), `${displayName} URL must be an http:// or https:// URL`, {
					itemIndex,
					description: url
						? `Got "${url.slice(0, 200)}". Enter a full URL the gateway can download, or switch ${displayName} Source to Binary Field.`
						: `It is empty. Enter a full URL the gateway can download, or switch ${displayName} Source to Binary Field.`,
				});
			}
			return url;
		}
		case 'base64': {
			const text = String(ctx.getNodeParameter(`${name}Base64`, itemIndex, '') ?? '').trim();
			const payload = text.startsWith('data:') ? text.slice(text.indexOf(',') + 1) : text;
			const header = text.startsWith('data:') ? text.slice(0, text.indexOf(',')) : '';
			if (!payload || !/^[A-Za-z0-9+/\s]+={0,2}$/.test(payload) || (header && !header.endsWith(';base64'))) {
				throw new NodeOperationError(ctx.getNode(), `${displayName} Base64 is not valid base64 data`, {
					itemIndex,
					description:
						'Enter base64 text, or a data URI such as data:image/png;base64,iVBORw0... To use a file, switch the source to Binary Field.',
				});
			}
			return text.replace(/\s+/g, '');
		}
		case 'binary': {
			const field = String(ctx.getNodeParameter(`${name}BinaryField`, itemIndex, 'data') ?? '').trim();
			return await binaryFieldAsDataUri(ctx, itemIndex, field, `${displayName} Binary Field`);
		}
		default:
			throw new NodeOperationError(ctx.getNode(), `${displayName} Source "${String(source)}" is not supported`, {
				itemIndex,
				description: 'Choose Binary Field, URL or Base64 / Data URI.',
			});
	}
}

/** A binary field of the input item as a `data:<mime>;base64,...` URI. */
export async function binaryFieldAsDataUri(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	label: string,
	expected: 'image' | 'any' = 'image',
): Promise<string> {
	const binary = ctx.getInputData()[itemIndex]?.binary ?? {};
	const data = field ? binary[field] : undefined;
	if (!data) {
		const available = Object.keys(binary);
		throw new NodeOperationError(ctx.getNode(), `Input item ${itemIndex} has no binary field "${field}"`, {
			itemIndex,
			description: available.length
				? `Set ${label} to one of: ${available.join(', ')}.`
				: `The input item carries no binary data. Add a node that loads the file (e.g. HTTP Request or Read/Write Files from Disk) before this one, or choose URL as the source.`,
		});
	}
	const mimeType = data.mimeType || 'application/octet-stream';
	if (expected === 'image' && !mimeType.startsWith('image/')) {
		throw new NodeOperationError(ctx.getNode(), `Binary field "${field}" of input item ${itemIndex} is not an image`, {
			itemIndex,
			description: `Its MIME type is ${mimeType}. Choose a field that holds a PNG, JPEG or WebP image.`,
		});
	}
	const buffer = await ctx.helpers.getBinaryDataBuffer(itemIndex, field);
	return `data:${mimeType};base64,${buffer.toString('base64')}`;
}

const EXTENSION_BY_MIME: Record<string, string> = {
	'image/png': 'png',
	'image/jpeg': 'jpg',
	'image/webp': 'webp',
	'image/gif': 'gif',
	'video/mp4': 'mp4',
	'video/webm': 'webm',
	'audio/mpeg': 'mp3',
};

function fileNameFrom(url: string, fallbackBase: string, mimeType: string): string {
	try {
		const last = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
		if (/^[\w.-]+\.[A-Za-z0-9]{2,5}$/.test(last)) return last;
	} catch {
		// fall through to a generated name
	}
	return `${fallbackBase}.${EXTENSION_BY_MIME[mimeType] ?? 'bin'}`;
}

interface DownloadOptions {
	itemIndex: number;
	/** File name used when the URL has none. */
	fileNameBase: string;
	/** MIME type used when the server does not say. */
	defaultMimeType: string;
	/** The MIME family we expect, checked against what the server says. */
	expectedPrefix: 'image/' | 'video/' | 'audio/';
}

/**
 * Downloads a result file into n8n's binary store. The body arrives as a stream and goes straight
 * to `prepareBinaryData`, so a large video is not buffered twice. The gateway key is sent only to
 * the gateway's own host: result URLs often point at a CDN that must never see it.
 */
export async function downloadToBinary(
	ctx: IExecuteFunctions | IWebhookFunctions,
	url: string,
	options: DownloadOptions,
): Promise<IBinaryData> {
	const { itemIndex } = options;
	if (!isHttpUrl(url)) {
		throw new NodeOperationError(ctx.getNode(), 'The gateway returned no downloadable URL for this result', {
			itemIndex,
			description: `Got "${String(url).slice(0, 200)}". Turn off the download option to keep the raw result.`,
		});
	}
	const credentials = await readGatewayCredentials(ctx, itemIndex);
	const sameHost = new URL(url).origin === new URL(credentials.baseUrl).origin;
	const request: IHttpRequestOptions = {
		method: 'GET',
		url,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: retryPolicy.requestTimeoutMs * 5,
	};
	const signal = (ctx as Partial<IExecuteFunctions>).getExecutionCancelSignal?.();
	if (signal) request.abortSignal = signal;

	let response: IN8nHttpFullResponse;
	try {
		response = (sameHost
			? await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, request)
			: await ctx.helpers.httpRequest(request)) as IN8nHttpFullResponse;
	} catch (error) {
		throw new NodeApiError(
			ctx.getNode(),
			{ message: (error as Error)?.message ?? String(error) },
			{
				message: `Could not download the result from ${new URL(url).host}`,
				description: 'The file host did not answer. Try again later, or turn off the download option and fetch the URL yourself.',
				itemIndex,
			},
		);
	}
	// A readable stream (encoding: 'stream'); typed by what prepareBinaryData accepts.
	const body = response.body as Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0] & {
		destroy?: () => void;
	};
	if (response.statusCode < 200 || response.statusCode >= 300) {
		body?.destroy?.();
		throw new NodeApiError(
			ctx.getNode(),
			{ httpCode: String(response.statusCode), message: `HTTP ${response.statusCode}` },
			{
				message: `Could not download the result (HTTP ${response.statusCode})`,
				description: `The file at ${url.slice(0, 300)} could not be fetched; result URLs may expire. Run the node again, or turn off the download option.`,
				httpCode: String(response.statusCode),
				itemIndex,
			},
		);
	}
	const header = String(response.headers?.['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	const mimeType = header.startsWith(options.expectedPrefix) ? header : options.defaultMimeType;
	const fileName = fileNameFrom(url, options.fileNameBase, mimeType);
	return await ctx.helpers.prepareBinaryData(body, fileName, mimeType);
}
