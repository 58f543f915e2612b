import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { fieldLabels } from '../../shared/gateway/validation';
import { imageInput } from '../../shared/parameters/imageInput';
import { promptProperty } from '../../shared/parameters/prompt';
import { readNumber, readText } from '../../shared/parameters/read';
import type { VideoRequest } from '../../shared/videoTask/completion';
import {
	callbackUrlProperty,
	completionProperties,
	durationProperty,
	modelTierProperty,
	sizeProperty,
} from '../../shared/videoTask/properties';
import { videosCreateRequest } from '../../shared/videoTask/videosRequest';

const prompt = promptProperty({
	description: 'Description of the video. With a reference image, describe how it should move.',
	placeholder: 'e.g. A paper boat drifting down a rainy street, slow motion',
});
const duration = durationProperty('video');
const referenceImage = imageInput({
	name: 'referenceImage',
	displayName: 'Reference Image',
	optional: true,
	description: 'An optional image the video starts from (image-to-video)',
});

const properties: INodeProperties[] = [
	modelTierProperty,
	prompt,
	sizeProperty,
	duration,
	...referenceImage.properties,
	callbackUrlProperty,
	...completionProperties,
];

export const description = updateDisplayOptions({ show: { operation: ['create'] } }, properties);

/** The request that creates this item's task. */
export async function createTask(ctx: IExecuteFunctions, itemIndex: number): Promise<VideoRequest> {
	const fields = { prompt, size: sizeProperty, duration, image_url: referenceImage };
	return videosCreateRequest(
		ctx,
		itemIndex,
		{
			prompt: readText(ctx, prompt, itemIndex),
			size: readText(ctx, sizeProperty, itemIndex),
			duration: readNumber(ctx, duration, itemIndex),
			image_url: await referenceImage.read(ctx, itemIndex),
		},
		fieldLabels(fields),
	);
}
