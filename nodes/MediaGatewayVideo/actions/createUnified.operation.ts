import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { ItemRun } from '../../shared/router';
import { videoUnifiedCreateSchema } from '../../shared/schemas';
import { stringParameter } from '../../shared/validation';
import {
	callbackUrlProperty,
	completionProperties,
	createVideoTask,
	modelTierProperty,
	readCallbackUrl,
} from '../../shared/videoCompletion';

const operations = ['createUnified'];
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
		description: 'Description of the video',
	},
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
		description: 'Format <width>:<height>. Switch to Expression to enter another ratio, e.g. 4:3.',
	},
	callbackUrlProperty(operations),
	...completionProperties(operations),
];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
): Promise<INodeExecutionData[]> {
	return await createVideoTask(this, itemIndex, run, {
		path: '/v1/video/create',
		schema: videoUnifiedCreateSchema,
		body: {
			model: stringParameter(this, 'model', itemIndex, 'Quality Tier'),
			prompt: stringParameter(this, 'prompt', itemIndex, 'Prompt'),
			aspect_ratio: stringParameter(this, 'aspectRatio', itemIndex, 'Aspect Ratio'),
			notifyHook: readCallbackUrl(this, itemIndex),
		},
	});
}
