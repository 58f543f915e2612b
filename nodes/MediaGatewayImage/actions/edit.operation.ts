import type { INodeProperties } from 'n8n-workflow';

import { IMAGE_STYLE_TYPES, imageEditSchema } from '../../shared/gateway/schemas';
import { fieldLabels } from '../../shared/gateway/validation';
import { imageInput } from '../../shared/parameters/imageInput';
import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import { promptProperty } from '../../shared/parameters/prompt';
import { readText } from '../../shared/parameters/read';
import { imageOperation } from './request';

const prompt = promptProperty({
	description: 'What to change in the image',
	placeholder: 'e.g. Put a red scarf on the fox',
});
const image = imageInput({ name: 'image', displayName: 'Image' });
const mask = imageInput({
	name: 'mask',
	displayName: 'Mask',
	optional: true,
	description:
		'An optional mask image marking the region to edit. The gateway documents masks as URLs; binary and base64 masks are sent as data URIs.',
});
const style: INodeProperties = {
	displayName: 'Style',
	name: 'styleType',
	type: 'options',
	options: [
		{ name: 'Gateway Default', value: '' },
		...IMAGE_STYLE_TYPES.map((value) => ({ name: value, value })),
	],
	default: '',
	description:
		'These are the styles Generate accepts; the gateway may accept others for Edit. Use an expression to send another value.',
};

export const { description, execute } = imageOperation({
	operation: 'edit',
	endpoint: 'edit',
	schema: imageEditSchema,
	properties: [
		prompt,
		...image.properties,
		...mask.properties,
		style,
		optionsCollection(downloadOptions('Image', true)),
	],
	body: async (ctx, itemIndex) => ({
		prompt: readText(ctx, prompt, itemIndex),
		image: await image.read(ctx, itemIndex),
		mask: await mask.read(ctx, itemIndex),
		style_type: readText(ctx, style, itemIndex),
	}),
	labels: fieldLabels({ prompt, image, mask, style_type: style }),
});
