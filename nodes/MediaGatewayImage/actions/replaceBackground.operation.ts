import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { ItemRun } from '../../shared/execution/itemRunner';
import { imageReplaceBackgroundSchema } from '../../shared/gateway/schemas';
import { fieldLabels } from '../../shared/gateway/validation';
import { imageInput } from '../../shared/parameters/imageInput';
import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import { promptProperty } from '../../shared/parameters/prompt';
import { readText } from '../../shared/parameters/read';
import { sendImageRequest } from './request';

const prompt = promptProperty({
	description: 'Description of the new background behind the detected subject',
	placeholder: 'e.g. A sunny beach with palm trees',
});
const image = imageInput({ name: 'image', displayName: 'Image' });

const properties: INodeProperties[] = [
	prompt,
	...image.properties,
	optionsCollection(downloadOptions('Image', true)),
];

export const description = updateDisplayOptions(
	{ show: { operation: ['replaceBackground'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
): Promise<INodeExecutionData[]> {
	return await sendImageRequest(this, itemIndex, run, {
		operation: 'replaceBackground',
		endpoint: 'replace-background',
		schema: imageReplaceBackgroundSchema,
		body: {
			prompt: readText(this, prompt, itemIndex),
			image: await image.read(this, itemIndex),
		},
		labels: fieldLabels({ prompt, image }),
	});
}
