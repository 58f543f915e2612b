/**
 * The one way every node reads an image input: from a binary field of the input item, a URL, or
 * base64 / data-URI text. Gives the panel parameters and reads them back into what the gateway
 * expects (docs/gateway-interface.md, "Images").
 */
import type { IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isHttpUrl } from '../gateway/schemas';
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
