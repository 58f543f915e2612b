import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { imageInputProperties, readImageInput } from '../../shared/parameters/imageInput';
import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import { imageReframeSchema } from '../../shared/gateway/schemas';
import { stringParameter } from '../../shared/gateway/validation';
import { sendImageRequest } from './common';

const show = { operation: ['reframe'] };

export const properties: INodeProperties[] = [
	...imageInputProperties({ name: 'image', displayName: 'Image', show }),
	{
		displayName: 'Resolution',
		name: 'resolution',
		type: 'string',
		default: '',
		placeholder: 'e.g. 1536x1024',
		displayOptions: { show },
		description:
			'Target size of the extended canvas. The spec does not show the accepted format; it is sent exactly as typed. Leave empty for the gateway default.',
	},
	optionsCollection('reframe', downloadOptions('Image', true)),
];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	return await sendImageRequest(this, itemIndex, {
		operation: 'reframe',
		endpoint: 'reframe',
		schema: imageReframeSchema,
		body: {
			image: await readImageInput(this, itemIndex, 'image', 'Image'),
			resolution: stringParameter(this, 'resolution', itemIndex, 'Resolution'),
		},
	});
}
