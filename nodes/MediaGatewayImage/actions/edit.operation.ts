import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { imageInputProperties, readImageInput } from '../../shared/parameters/imageInput';
import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import { IMAGE_STYLE_TYPES, imageEditSchema } from '../../shared/gateway/schemas';
import { stringParameter } from '../../shared/gateway/validation';
import { promptProperty, sendImageRequest } from './common';

const show = { operation: ['edit'] };

export const properties: INodeProperties[] = [
	promptProperty('edit', 'What to change in the image'),
	...imageInputProperties({ name: 'image', displayName: 'Image', show }),
	...imageInputProperties({
		name: 'mask',
		displayName: 'Mask',
		show,
		optional: true,
		description: 'An optional mask image marking the region to edit. The gateway documents masks as URLs; binary and base64 masks are sent as data URIs.',
	}),
	{
		displayName: 'Style',
		name: 'styleType',
		type: 'options',
		options: [{ name: 'Gateway Default', value: '' }, ...IMAGE_STYLE_TYPES.map((value) => ({ name: value, value }))],
		default: '',
		displayOptions: { show },
		description:
			'The spec does not list the styles Edit accepts; these are the Generate styles. Use an expression to send another value.',
	},
	optionsCollection('edit', downloadOptions('Image', true)),
];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	return await sendImageRequest(this, itemIndex, {
		operation: 'edit',
		endpoint: 'edit',
		schema: imageEditSchema,
		body: {
			prompt: stringParameter(this, 'prompt', itemIndex, 'Prompt'),
			image: await readImageInput(this, itemIndex, 'image', 'Image'),
			mask: await readImageInput(this, itemIndex, 'mask', 'Mask'),
			style_type: stringParameter(this, 'styleType', itemIndex, 'Style'),
		},
	});
}
