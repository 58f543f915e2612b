import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { imageInputProperties, readImageInput } from '../../shared/parameters/imageInput';
import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import { imageReplaceBackgroundSchema } from '../../shared/gateway/schemas';
import { stringParameter } from '../../shared/gateway/validation';
import { promptProperty, sendImageRequest } from './common';

const show = { operation: ['replaceBackground'] };

export const properties: INodeProperties[] = [
	promptProperty('replaceBackground', 'Description of the new background behind the detected subject'),
	...imageInputProperties({ name: 'image', displayName: 'Image', show }),
	optionsCollection('replaceBackground', downloadOptions('Image', true)),
];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	return await sendImageRequest(this, itemIndex, {
		operation: 'replaceBackground',
		endpoint: 'replace-background',
		schema: imageReplaceBackgroundSchema,
		body: {
			prompt: stringParameter(this, 'prompt', itemIndex, 'Prompt'),
			image: await readImageInput(this, itemIndex, 'image', 'Image'),
		},
	});
}
