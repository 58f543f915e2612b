import { imageReplaceBackgroundSchema } from '../../shared/gateway/schemas';
import { fieldLabels } from '../../shared/gateway/validation';
import { imageInput } from '../../shared/parameters/imageInput';
import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import { promptProperty } from '../../shared/parameters/prompt';
import { readText } from '../../shared/parameters/read';
import { imageOperation } from './request';

const prompt = promptProperty({
	description: 'Description of the new background behind the detected subject',
	placeholder: 'e.g. A sunny beach with palm trees',
});
const image = imageInput({ name: 'image', displayName: 'Image' });

export const { description, execute } = imageOperation({
	operation: 'replaceBackground',
	endpoint: 'replace-background',
	schema: imageReplaceBackgroundSchema,
	properties: [prompt, ...image.properties, optionsCollection(downloadOptions('Image', true))],
	body: async (ctx, itemIndex) => ({
		prompt: readText(ctx, prompt, itemIndex),
		image: await image.read(ctx, itemIndex),
	}),
	labels: fieldLabels({ prompt, image }),
});
