import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { fieldLabels } from '../../shared/gateway/validation';
import { readText } from '../../shared/parameters/read';
import type { VideoRequest } from '../../shared/videoTask/completion';
import {
	callbackUrlProperty,
	completionProperties,
	modelTierProperty,
	sizeProperty,
} from '../../shared/videoTask/properties';
import { videosCreateRequest } from '../../shared/videoTask/videosRequest';
import { readScenes, sceneLabels, sceneProperties } from './scenes';

const properties: INodeProperties[] = [
	...sceneProperties,
	modelTierProperty,
	sizeProperty,
	callbackUrlProperty,
	...completionProperties,
];

export const description = updateDisplayOptions({ show: { operation: ['create'] } }, properties);

/** The request that creates this item's storyboard task: Video's Create request with scenes. */
export async function createTask(ctx: IExecuteFunctions, itemIndex: number): Promise<VideoRequest> {
	return videosCreateRequest(
		ctx,
		itemIndex,
		{
			size: readText(ctx, sizeProperty, itemIndex),
			storyboard: readScenes(ctx, itemIndex) as never,
		},
		{ ...fieldLabels({ size: sizeProperty }), ...sceneLabels },
	);
}
