import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { imageInputProperties, readImageInput } from '../../shared/parameters/imageInput';
import { videoCreateSchema } from '../../shared/gateway/schemas';
import { numberParameter, stringParameter } from '../../shared/gateway/validation';
import {
	callbackUrlProperty,
	completionProperties,
	modelTierProperty,
	readCallbackUrl,
	type VideoRequest,
	videoCreateExecutor,
	videoPromptProperty,
} from '../../shared/videoTask/completion';

const operations = ['create'];
const show = { operation: operations };

export const properties: INodeProperties[] = [
	modelTierProperty(operations),
	videoPromptProperty(operations, 'Description of the video. With a reference image, describe how it should move.'),
	{
		displayName: 'Size',
		name: 'size',
		type: 'string',
		default: '1280x720',
		placeholder: '1280x720',
		displayOptions: { show },
		description: 'Frame size as &lt;width&gt;x&lt;height&gt;. Leave empty for the gateway default.',
	},
	{
		displayName: 'Duration',
		name: 'duration',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 5,
		displayOptions: { show },
		description:
			'Length of the video as a whole number. The spec does not give the unit; gateways of this kind use seconds.',
	},
	...imageInputProperties({
		name: 'referenceImage',
		displayName: 'Reference Image',
		show,
		optional: true,
		description: 'An optional image the video starts from (image-to-video)',
	}),
	callbackUrlProperty(operations),
	...completionProperties(operations),
];

/** The request that creates this item's task. */
export async function build(ctx: IExecuteFunctions, itemIndex: number): Promise<VideoRequest> {
	return {
		path: '/v1/videos',
		schema: videoCreateSchema,
		body: {
			model: stringParameter(ctx, 'model', itemIndex, 'Quality Tier'),
			prompt: stringParameter(ctx, 'prompt', itemIndex, 'Prompt'),
			size: stringParameter(ctx, 'size', itemIndex, 'Size'),
			duration: numberParameter(ctx, 'duration', itemIndex, 'Duration'),
			image_url: await readImageInput(ctx, itemIndex, 'referenceImage', 'Reference Image'),
			notifyHook: readCallbackUrl(ctx, itemIndex),
		},
	};
}

export const execute = videoCreateExecutor(build);
