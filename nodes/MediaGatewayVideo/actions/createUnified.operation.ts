import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { videoUnifiedCreateSchema } from '../../shared/gateway/schemas';
import { fieldLabels } from '../../shared/gateway/validation';
import { promptProperty } from '../../shared/parameters/prompt';
import { readText } from '../../shared/parameters/read';
import type { VideoRequest } from '../../shared/videoTask/completion';
import {
	callbackUrlProperty,
	completionProperties,
	modelTierProperty,
	readCallbackUrl,
} from '../../shared/videoTask/properties';

const prompt = promptProperty({
	description: 'Description of the video',
	placeholder: 'e.g. A paper boat drifting down a rainy street, slow motion',
});
const aspectRatio: INodeProperties = {
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
	description:
		'Format &lt;width&gt;:&lt;height&gt;. Switch to Expression to enter another ratio, e.g. 4:3.',
};

const properties: INodeProperties[] = [
	modelTierProperty,
	prompt,
	aspectRatio,
	callbackUrlProperty,
	...completionProperties,
];

export const description = updateDisplayOptions(
	{ show: { operation: ['createUnified'] } },
	properties,
);

/** The request that creates this item's task: `POST /v1/video/create` (docs/gateway-interface.md, "Videos"). */
export async function createTask(ctx: IExecuteFunctions, itemIndex: number): Promise<VideoRequest> {
	return {
		path: '/v1/video/create',
		schema: videoUnifiedCreateSchema,
		body: {
			model: readText(ctx, modelTierProperty, itemIndex),
			prompt: readText(ctx, prompt, itemIndex),
			aspect_ratio: readText(ctx, aspectRatio, itemIndex),
			notifyHook: readCallbackUrl(ctx, itemIndex),
		},
		labels: fieldLabels({
			model: modelTierProperty,
			prompt,
			aspect_ratio: aspectRatio,
			notifyHook: callbackUrlProperty,
		}),
	};
}
