import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { videoUnifiedCreateSchema } from '../../shared/gateway/schemas';
import { stringParameter } from '../../shared/gateway/validation';
import {
	callbackUrlProperty,
	completionProperties,
	modelTierProperty,
	readCallbackUrl,
	type VideoRequest,
	videoCreateExecutor,
	videoPromptProperty,
} from '../../shared/videoTask/completion';

const operations = ['createUnified'];
const show = { operation: operations };

export const properties: INodeProperties[] = [
	modelTierProperty(operations),
	videoPromptProperty(operations, 'Description of the video'),
	{
		displayName: 'Aspect Ratio',
		name: 'aspectRatio',
		type: 'options',
		options: [
			{ name: 'Landscape (16:9)', value: '16:9' },
			{ name: 'Portrait (9:16)', value: '9:16' },
			{ name: 'Square (1:1)', value: '1:1' },
			{ name: 'Gateway Default', value: '' },
		],
		default: '16:9',
		displayOptions: { show },
		description: 'Format &lt;width&gt;:&lt;height&gt;. Switch to Expression to enter another ratio, e.g. 4:3.',
	},
	callbackUrlProperty(operations),
	...completionProperties(operations),
];

/** The request that creates this item's task. */
export async function build(ctx: IExecuteFunctions, itemIndex: number): Promise<VideoRequest> {
	return {
		path: '/v1/video/create',
		schema: videoUnifiedCreateSchema,
		body: {
			model: stringParameter(ctx, 'model', itemIndex, 'Quality Tier'),
			prompt: stringParameter(ctx, 'prompt', itemIndex, 'Prompt'),
			aspect_ratio: stringParameter(ctx, 'aspectRatio', itemIndex, 'Aspect Ratio'),
			notifyHook: readCallbackUrl(ctx, itemIndex),
		},
	};
}

export const execute = videoCreateExecutor(build);
