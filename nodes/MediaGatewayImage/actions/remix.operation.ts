import type { INodeProperties } from 'n8n-workflow';

import { imageRemixSchema } from '../../shared/gateway/schemas';
import { fieldLabels } from '../../shared/gateway/validation';
import { imageInput } from '../../shared/parameters/imageInput';
import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import { promptProperty } from '../../shared/parameters/prompt';
import { readNumber, readText } from '../../shared/parameters/read';
import { imageOperation } from './request';

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

export const { description, execute } = imageOperation({
	operation: 'remix',
	endpoint: 'remix',
	schema: imageRemixSchema,
	properties: [
		prompt,
		...image.properties,
		imageWeight,
		optionsCollection(downloadOptions('Image', true)),
	],
	body: async (ctx, itemIndex) => ({
		prompt: readText(ctx, prompt, itemIndex),
		image: await image.read(ctx, itemIndex),
		image_weight: readNumber(ctx, imageWeight, itemIndex),
	}),
	labels: fieldLabels({ prompt, image, image_weight: imageWeight }),
});
