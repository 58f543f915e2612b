/**
 * The one way every node takes an image: from a binary field of the input item, a public URL, or
 * base64 / data-URI text (docs/gateway-interface.md, "Images": the gateway accepts a URL, a data
 * URI or bare base64). `imageInput()` defines one input once: its panel parameters and the reader
 * that turns them into what the gateway expects, both named from the same display name.
 *
 * The same input also lives inside a list (Character's Reference Images): `inList: true` gives the
 * parameters of one list entry (`source`, `url`, `binaryField`, `base64`) and `readEntry` reads one.
 */
import type {
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isHttpUrl } from '../gateway/schemas';

export type ImageSource = 'binary' | 'url' | 'base64' | 'none';

export interface ImageInputDefinition {
	/** Parameter name prefix, e.g. `image` or `mask`; unused for a list entry. */
	name?: string;
	/** What the user calls this input, e.g. "Image", "Mask", "Reference Image". */
	displayName: string;
	/** An optional input offers None and starts at it, so the request carries none until one is chosen. */
	optional?: boolean;
	description?: string;
	/** The sources offered, in this order (default: Binary Field, URL, Base64 / Data URI). */
	sources?: Array<Exclude<ImageSource, 'none'>>;
	/** The source a new node starts with (default: none when optional, else the first source). */
	defaultSource?: ImageSource;
	/** The parameters of one entry of a list (names without prefix, labels without the input's name). */
	inList?: boolean;
}

export interface ImageInput {
	readonly displayName: string;
	/** The panel parameters of this input (for a list entry: the values of one entry). */
	readonly properties: INodeProperties[];
	/** Reads the input of one item: a URL, base64 / data-URI text, or undefined for None. */
	read(ctx: IExecuteFunctions, itemIndex: number): Promise<string | undefined>;
	/** Reads one entry of a list of this input; `label` names the entry, e.g. "Reference Image #2". */
	readEntry(
		ctx: IExecuteFunctions,
		itemIndex: number,
		entry: IDataObject,
		label: string,
	): Promise<string | undefined>;
}

const SOURCE_OPTIONS: Record<
	Exclude<ImageSource, 'none'>,
	{ name: string; description: string }
> = {
	binary: {
		name: 'Binary Field',
		description: 'A binary field of the input item, e.g. from Read File or HTTP Request',
	},
	url: { name: 'URL', description: 'A public http(s) URL the gateway can fetch' },
	base64: {
		name: 'Base64 / Data URI',
		description: 'Base64 data, or a data URI (data:image/png;base64,...)',
	},
};

/** `image` + `Url` → `imageUrl`; no prefix → `url`. */
function parameterName(prefix: string, suffix: string): string {
	return prefix ? `${prefix}${suffix}` : `${suffix[0].toLowerCase()}${suffix.slice(1)}`;
}

export function imageInput(definition: ImageInputDefinition): ImageInput {
	const { displayName, optional, inList } = definition;
	const prefix = inList ? '' : (definition.name ?? '');
	const names = {
		source: parameterName(prefix, 'Source'),
		binaryField: parameterName(prefix, 'BinaryField'),
		url: parameterName(prefix, 'Url'),
		base64: parameterName(prefix, 'Base64'),
	};
	/** Labels as the panel shows them; inside a list entry the entry already names the input. */
	const panelLabel = (part: string) => (inList ? part : `${displayName} ${part}`);
	const sources = definition.sources ?? ['binary', 'url', 'base64'];
	const options: Array<{ name: string; value: string; description: string }> = sources.map(
		(value) => ({ ...SOURCE_OPTIONS[value], value }),
	);
	if (optional)
		options.unshift({
			name: 'None',
			value: 'none',
			description: `No ${displayName.toLowerCase()}`,
		});
	const defaultSource = definition.defaultSource ?? (optional ? 'none' : sources[0]);
	// n8n refuses to run a node whose required parameter is empty; in a list entry the node's own
	// message, which names the entry ("Reference Image #2 URL ..."), says more.
	const required = inList ? {} : { required: true };
	const withSource = (value: string): IDisplayOptions => ({ show: { [names.source]: [value] } });

	const byValue: Record<Exclude<ImageSource, 'none'>, INodeProperties> = {
		binary: {
			displayName: panelLabel('Binary Field'),
			name: names.binaryField,
			type: 'string',
			default: 'data',
			...required,
			displayOptions: withSource('binary'),
			hint: 'The name of the binary field of the input item that holds the image',
			description: 'Sent to the gateway as a data URI',
		},
		url: {
			displayName: panelLabel('URL'),
			name: names.url,
			type: 'string',
			default: '',
			...required,
			placeholder: 'https://example.com/picture.png',
			displayOptions: withSource('url'),
		},
		base64: {
			displayName: panelLabel('Base64'),
			name: names.base64,
			type: 'string',
			typeOptions: { rows: 2 },
			default: '',
			...required,
			placeholder: 'data:image/png;base64,iVBORw0KGgo...',
			displayOptions: withSource('base64'),
		},
	};
	const properties: INodeProperties[] = [
		{
			displayName: panelLabel('Source'),
			name: names.source,
			type: 'options',
			options,
			default: defaultSource,
			description: definition.description ?? `Where the ${displayName.toLowerCase()} comes from`,
		},
		...sources.map((value) => byValue[value]),
	];

	/** Reads the chosen source's value with `get`; `label` names the input in messages. */
	const readWith = async (
		ctx: IExecuteFunctions,
		itemIndex: number,
		get: (name: string, fallback: string) => unknown,
		label: string,
	): Promise<string | undefined> => {
		const source = get(names.source, defaultSource) as ImageSource;
		const text = (name: string, fallback = '') => String(get(name, fallback) ?? '').trim();
		switch (source) {
			case 'none':
				return undefined;
			case 'url': {
				const url = text(names.url);
				if (!isHttpUrl(url)) {
					throw new NodeOperationError(
						ctx.getNode(),
						`${label} URL must be an http:// or https:// URL`,
						{
							itemIndex,
							description: url
								? `Got "${url.slice(0, 200)}". Enter a full URL the gateway can download, or switch ${label} Source to Binary Field.`
								: `It is empty. Enter a full URL the gateway can download, or switch ${label} Source to Binary Field.`,
						},
					);
				}
				return url;
			}
			case 'base64': {
				const value = text(names.base64);
				const payload = value.startsWith('data:') ? value.slice(value.indexOf(',') + 1) : value;
				const header = value.startsWith('data:') ? value.slice(0, value.indexOf(',')) : '';
				if (
					!payload ||
					!/^[A-Za-z0-9+/\s]+={0,2}$/.test(payload) ||
					(header && !header.endsWith(';base64'))
				) {
					throw new NodeOperationError(ctx.getNode(), `${label} Base64 is not valid base64 data`, {
						itemIndex,
						description:
							'Enter base64 text, or a data URI such as data:image/png;base64,iVBORw0... To use a file, switch the source to Binary Field.',
					});
				}
				return value.replace(/\s+/g, '');
			}
			case 'binary':
				return await binaryFieldAsDataUri(
					ctx,
					itemIndex,
					text(names.binaryField, 'data'),
					`${label} Binary Field`,
				);
		}
		throw new NodeOperationError(
			ctx.getNode(),
			`${label} Source "${String(source)}" is not supported`,
			{
				itemIndex,
				description: `Choose ${sources
					.map((value) => SOURCE_OPTIONS[value].name)
					.join(', ')
					.replace(/, ([^,]*)$/, ' or $1')}.`,
			},
		);
	};

	return {
		displayName,
		properties,
		async read(ctx, itemIndex) {
			return await readWith(
				ctx,
				itemIndex,
				(name, fallback) => ctx.getNodeParameter(name, itemIndex, fallback),
				displayName,
			);
		},
		async readEntry(ctx, itemIndex, entry, label) {
			return await readWith(ctx, itemIndex, (name, fallback) => entry[name] ?? fallback, label);
		},
	};
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
		throw new NodeOperationError(
			ctx.getNode(),
			`Input item ${itemIndex} has no binary field "${field}"`,
			{
				itemIndex,
				description: available.length
					? `Set ${label} to one of: ${available.join(', ')}.`
					: `The input item carries no binary data. Add a node that loads the file (e.g. HTTP Request or Read/Write Files from Disk) before this one, or choose URL as the source.`,
			},
		);
	}
	const mimeType = data.mimeType || 'application/octet-stream';
	if (expected === 'image' && !mimeType.startsWith('image/')) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Binary field "${field}" of input item ${itemIndex} is not an image`,
			{
				itemIndex,
				description: `Its MIME type is ${mimeType}. Choose a field that holds a PNG, JPEG or WebP image.`,
			},
		);
	}
	const buffer = await ctx.helpers.getBinaryDataBuffer(itemIndex, field);
	return `data:${mimeType};base64,${buffer.toString('base64')}`;
}
