import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { videoCreateSchema } from '../gateway/schemas';
import { type FieldLabels, fieldLabels } from '../gateway/validation';
import { readText } from '../parameters/read';
import type { VideoRequest } from './completion';
import { callbackUrlProperty, modelTierProperty, readCallbackUrl } from './properties';

const COMMON_LABELS = fieldLabels({ model: modelTierProperty, notifyHook: callbackUrlProperty });

/**
 * `POST /v1/videos` (docs/gateway-interface.md, "Videos" and "Storyboards"): Video's Create and
 * Storyboard's Create send this one request. The caller gives its own fields; the Quality Tier
 * and the Callback URL are read here, as every task-creating operation shows them.
 */
export function videosCreateRequest(
	ctx: IExecuteFunctions,
	itemIndex: number,
	fields: IDataObject,
	labels: FieldLabels,
): VideoRequest {
	return {
		path: '/v1/videos',
		schema: videoCreateSchema,
		body: {
			model: readText(ctx, modelTierProperty, itemIndex),
			...fields,
			notifyHook: readCallbackUrl(ctx, itemIndex),
		},
		labels: { ...COMMON_LABELS, ...labels },
	};
}
