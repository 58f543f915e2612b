import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { ItemRun } from '../../shared/execution/itemRunner';
import { imageRemixSchema } from '../../shared/gateway/schemas';
import { fieldLabels } from '../../shared/gateway/validation';
import { imageInput } from '../../shared/parameters/imageInput';
import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import { promptProperty } from '../../shared/parameters/prompt';
import { readNumber, readText } from '../../shared/parameters/read';
import { sendImageRequest } from './request';

const prompt = promptProperty({
	description: 'The new prompt for the variant',
	placeholder: 'e.g. The same scene at night, in falling snow',
});
const image = imageInput({ name: 'image', displayName: 'Reference Image' });
const imageWeight: INodeProperties = {
	displayName: 'Image Weight',
	name: 'imageWeight',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: 100 },
	default: 50,
	description:
		'How closely the variant follows the reference image, from 0 (loosely) to 100 (closely)',
};

const properties: INodeProperties[] = [
	prompt,
	...image.properties,
	imageWeight,
	optionsCollection(downloadOptions('Image', true)),
];

export const description = updateDisplayOptions({ show: { operation: ['remix'] } }, properties);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
): Promise<INodeExecutionData[]> {
	return await sendImageRequest(this, itemIndex, run, {
		operation: 'remix',
		endpoint: 'remix',
		schema: imageRemixSchema,
		body: {
			prompt: readText(this, prompt, itemIndex),
			image: await image.read(this, itemIndex),
			image_weight: readNumber(this, imageWeight, itemIndex),
		},
		labels: fieldLabels({ prompt, image, image_weight: imageWeight }),
	});
}
