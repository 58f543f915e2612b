import type { INodeProperties } from 'n8n-workflow';

import { imageReframeSchema } from '../../shared/gateway/schemas';
import { fieldLabels } from '../../shared/gateway/validation';
import { imageInput } from '../../shared/parameters/imageInput';
import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import { readText } from '../../shared/parameters/read';
import { imageOperation } from './request';

const image = imageInput({ name: 'image', displayName: 'Image' });
const resolution: INodeProperties = {
	displayName: 'Resolution',
	name: 'resolution',
	type: 'string',
	default: '',
	placeholder: 'e.g. 1536x1024',
	// docs/gateway-interface.md, "Decisions where the interface is silent": the format is passed through.
	description:
		'Target size of the extended canvas, sent exactly as typed (the gateway decides which sizes it accepts). Leave empty for the gateway default.',
};

export const { description, execute } = imageOperation({
	operation: 'reframe',
	endpoint: 'reframe',
	schema: imageReframeSchema,
	properties: [...image.properties, resolution, optionsCollection(downloadOptions('Image', true))],
	body: async (ctx, itemIndex) => ({
		image: await image.read(ctx, itemIndex),
		resolution: readText(ctx, resolution, itemIndex),
	}),
	labels: fieldLabels({ image, resolution }),
});
