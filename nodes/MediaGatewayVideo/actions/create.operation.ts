import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { imageInputProperties, readImageInput } from '../../shared/binary';
import type { ItemRun } from '../../shared/router';
import { videoCreateSchema } from '../../shared/schemas';
import { numberParameter, stringParameter } from '../../shared/validation';
import {
	callbackUrlProperty,
	completionProperties,
	createVideoTask,
	modelTierProperty,
	readCallbackUrl,
} from '../../shared/videoCompletion';

const operations = ['create'];
const show = { operation: operations };

export const properties: INodeProperties[] = [
	modelTierProperty(operations),
	{
		displayName: 'Prompt',
		name: 'prompt',
		type: 'string',
		typeOptions: { rows: 3 },
		required: true,
		default: '',
		placeholder: 'e.g. A paper boat drifting down a rainy street, slow motion',
		displayOptions: { show },
		description: 'Description of the video. With a reference image, describe how it should move.',
	},
	{
		displayName: 'Size',
		name: 'size',
		type: 'string',
		default: '1280x720',
		placeholder: '1280x720',
		displayOptions: { show },
		description: 'Frame size as <width>x<height>. Leave empty for the gateway default.',
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

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
): Promise<INodeExecutionData[]> {
	return await createVideoTask(this, itemIndex, run, {
		path: '/v1/videos',
		schema: videoCreateSchema,
		body: {
			model: stringParameter(this, 'model', itemIndex, 'Quality Tier'),
			prompt: stringParameter(this, 'prompt', itemIndex, 'Prompt'),
			size: stringParameter(this, 'size', itemIndex, 'Size'),
			duration: numberParameter(this, 'duration', itemIndex, 'Duration'),
			image_url: await readImageInput(this, itemIndex, 'referenceImage', 'Reference Image'),
			notifyHook: readCallbackUrl(this, itemIndex),
		},
	});
}
