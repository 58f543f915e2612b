import type { INodeProperties } from 'n8n-workflow';

import { concurrencyOption } from './router';

/** "Download ..." + "Put Output File in Field", shared by every operation that returns files. */
export function downloadOptions(noun: 'Image' | 'Video', defaultDownload: boolean): INodeProperties[] {
	const download: INodeProperties = {
		displayName: `Download ${noun}`,
		name: 'download',
		type: 'boolean',
		default: true,
		description: `Whether to download the ${noun.toLowerCase()} into the item's binary data, ready for nodes such as Google Drive or Write File. Off returns only its URL.`,
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
	];
}

/** The Options collection of one operation: its own entries plus Concurrency, shown last. */
export function optionsCollection(
	operation: string | string[],
	entries: INodeProperties[],
	extraShow: Record<string, Array<string | boolean>> = {},
): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { operation: Array.isArray(operation) ? operation : [operation], ...extraShow } },
		options: [...entries, concurrencyOption],
	};
}
