import type { IExecuteFunctions, INodeProperties, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { concurrencyOption } from '../execution/itemRunner';
import type { DownloadLimits } from '../transport/download';

type DownloadNoun = 'Image' | 'Video';

/**
 * Download limits by kind of file. Generated images are a few MB; videos of this gateway family
 * (seconds to a minute of 1080p) tens to a few hundred MB. The limits stop a wrong or hostile URL
 * from filling n8n's binary store or holding a worker for ever, and stay below n8n's default
 * database binary limit (512 MiB) so queue mode can store what is downloaded.
 */
export const DOWNLOAD_LIMIT_DEFAULTS: Record<DownloadNoun, { maxMb: number; timeSeconds: number }> =
	{
		Image: { maxMb: 50, timeSeconds: 120 },
		Video: { maxMb: 500, timeSeconds: 600 },
	};

const maxSizeProperty: INodeProperties = {
	displayName: 'Max Download Size (MB)',
	name: 'maxDownloadSizeMb',
	type: 'number',
	typeOptions: { minValue: 1, numberPrecision: 0 },
	default: 50,
};

const timeLimitProperty: INodeProperties = {
	displayName: 'Download Time Limit (Seconds)',
	name: 'downloadTimeLimitSeconds',
	type: 'number',
	typeOptions: { minValue: 1, numberPrecision: 0 },
	default: 120,
};

/** "Download ...", "Put Output File in Field" and the download limits, shared by every operation that returns files. */
export function downloadOptions(noun: DownloadNoun, defaultDownload: boolean): INodeProperties[] {
	const kind = noun.toLowerCase();
	// Literal defaults (n8n's scanner requires them); the video values replace them below and
	// DOWNLOAD_LIMIT_DEFAULTS must match (tested).
	const maxSize: INodeProperties = {
		...maxSizeProperty,
		description: `Applies when the ${kind} is downloaded. A larger file is not stored: the download stops as soon as it passes this size and the item fails with an error naming the file's host. 1 MB = 1,048,576 bytes.`,
	};
	const timeLimit: INodeProperties = {
		...timeLimitProperty,
		description: `Applies when the ${kind} is downloaded: the longest the download may take from the first request to the last byte, redirects included`,
	};
	const video = noun === 'Video';
	const download: INodeProperties = {
		displayName: `Download ${noun}`,
		name: 'download',
		type: 'boolean',
		default: true,
		description: `Whether to download the ${kind} into the item's binary data, ready for nodes such as Google Drive or Write File. Off returns only its URL.`,
	};
	return [
		defaultDownload ? download : { ...download, default: false },
		{
			displayName: 'Put Output File in Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			displayOptions: { show: { download: [true] } },
			hint: 'The name of the binary field to put the file in',
		},
		video ? { ...maxSize, default: 500 } : maxSize,
		video ? { ...timeLimit, default: 600 } : timeLimit,
	];
}

/** The download limits of one item, checked; read in webhook contexts too (Wait for Callback's resume). */
export function readDownloadLimits(
	ctx: IExecuteFunctions | IWebhookFunctions,
	itemIndex: number,
	kind: 'image' | 'video',
): DownloadLimits {
	const defaults = DOWNLOAD_LIMIT_DEFAULTS[kind === 'video' ? 'Video' : 'Image'];
	const read = (name: string, fallback: number): unknown =>
		'getBodyData' in ctx
			? (ctx as IWebhookFunctions).getNodeParameter(`options.${name}`, fallback)
			: (ctx as IExecuteFunctions).getNodeParameter(`options.${name}`, itemIndex, fallback);
	const check = (property: INodeProperties, fallback: number): number => {
		const raw = read(property.name, fallback);
		const label = property.displayName;
		const value = Number(raw);
		if (!Number.isFinite(value) || value <= 0) {
			throw new NodeOperationError(ctx.getNode(), `${label} must be a number greater than 0`, {
				itemIndex,
				description: `Got "${String(raw)}". The default is ${fallback}.`,
			});
		}
		return value;
	};
	const maxMb = check(maxSizeProperty, defaults.maxMb);
	const timeSeconds = check(timeLimitProperty, defaults.timeSeconds);
	return {
		maxMb,
		maxBytes: Math.floor(maxMb * 1024 * 1024),
		timeSeconds,
		timeMs: Math.round(timeSeconds * 1000),
	};
}

/**
 * The Options collection of one operation: its own entries plus Concurrency, shown last. The
 * operation's file adds its `operation` condition (updateDisplayOptions); `show` adds others.
 */
export function optionsCollection(
	entries: INodeProperties[],
	show?: Record<string, Array<string | boolean>>,
): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		...(show ? { displayOptions: { show } } : {}),
		options: [...entries, concurrencyOption],
	};
}
