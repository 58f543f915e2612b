import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { imageInputProperties, readImageInput } from '../../shared/parameters/imageInput';
import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import { imageRemixSchema } from '../../shared/gateway/schemas';
import { numberParameter, stringParameter } from '../../shared/gateway/validation';
import { promptProperty, sendImageRequest } from './common';

const show = { operation: ['remix'] };

export const properties: INodeProperties[] = [
	promptProperty('remix', 'The new prompt for the variant'),
	...imageInputProperties({ name: 'image', displayName: 'Reference Image', show }),
	{
		displayName: 'Image Weight',
		name: 'imageWeight',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 100 },
		default: 50,
		displayOptions: { show },
		description: 'How closely the variant follows the reference image, from 0 (loosely) to 100 (closely)',
	},
	optionsCollection('remix', downloadOptions('Image', true)),
];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	return await sendImageRequest(this, itemIndex, {
		operation: 'remix',
		endpoint: 'remix',
		schema: imageRemixSchema,
		body: {
			prompt: stringParameter(this, 'prompt', itemIndex, 'Prompt'),
			image: await readImageInput(this, itemIndex, 'image', 'Reference Image'),
			image_weight: numberParameter(this, 'imageWeight', itemIndex, 'Image Weight'),
		},
		labels: { image: 'Reference Image' },
	});
}
