import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { ItemRun } from '../../shared/execution/itemRunner';
import { imageReframeSchema } from '../../shared/gateway/schemas';
import { fieldLabels } from '../../shared/gateway/validation';
import { imageInput } from '../../shared/parameters/imageInput';
import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import { readText } from '../../shared/parameters/read';
import { sendImageRequest } from './request';

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

const properties: INodeProperties[] = [
	...image.properties,
	resolution,
	optionsCollection(downloadOptions('Image', true)),
];

export const description = updateDisplayOptions({ show: { operation: ['reframe'] } }, properties);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
): Promise<INodeExecutionData[]> {
	return await sendImageRequest(this, itemIndex, run, {
		operation: 'reframe',
		endpoint: 'reframe',
		schema: imageReframeSchema,
		body: {
			image: await image.read(this, itemIndex),
			resolution: readText(this, resolution, itemIndex),
		},
		labels: fieldLabels({ image, resolution }),
	});
}
