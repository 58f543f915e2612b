import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import type { ZodType, ZodTypeDef } from 'zod/v3';

import { imageResultItems } from './results';
import { gatewayRequest } from '../../shared/transport/request';
import { compact, type FieldLabels, validateBody } from '../../shared/gateway/validation';

/** Body field → parameter name in the panel, so a validation error names the box to fix. */
export const IMAGE_FIELD_LABELS: FieldLabels = {
	prompt: 'Prompt',
	aspect_ratio: 'Aspect Ratio',
	model: 'Model Version',
	magic_prompt_option: 'Magic Prompt',
	rendering_speed: 'Rendering Speed',
	style_type: 'Style',
	negative_prompt: 'Negative Prompt',
	image: 'Image',
	mask: 'Mask',
	image_weight: 'Image Weight',
	resolution: 'Resolution',
};

/** Each operation's example, so the hint shows what that prompt is for (a change, a background...). */
const PROMPT_PLACEHOLDERS: Record<string, string> = {
	generate: 'e.g. A red fox reading a newspaper titled "Morning News", watercolor',
	edit: 'e.g. Put a red scarf on the fox',
	remix: 'e.g. The same scene at night, in falling snow',
	replaceBackground: 'e.g. A sunny beach with palm trees',
};

export function promptProperty(operation: string, description: string, displayName = 'Prompt'): INodeProperties {
	return {
		displayName,
		name: 'prompt',
		type: 'string',
		typeOptions: { rows: 3 },
		required: true,
		default: '',
		placeholder: PROMPT_PLACEHOLDERS[operation] ?? PROMPT_PLACEHOLDERS.generate,
		displayOptions: { show: { operation: [operation] } },
		description,
	};
}

/** The one path every image operation takes: validate the body, send it, turn the answer into items. */
export async function sendImageRequest(
	ctx: IExecuteFunctions,
	itemIndex: number,
	request: {
		operation: string;
		endpoint: string;
		schema: ZodType<IDataObject, ZodTypeDef, unknown>;
		body: IDataObject;
		labels?: FieldLabels;
	},
): Promise<INodeExecutionData[]> {
	const body = validateBody(ctx, request.schema, compact(request.body), itemIndex, {
		...IMAGE_FIELD_LABELS,
		...request.labels,
	});
	const response = await gatewayRequest(ctx, {
		method: 'POST',
		path: `/imgmodel/v1/imgmodel-v3/${request.endpoint}`,
		body,
		itemIndex,
	});
	return await imageResultItems(ctx, itemIndex, response, request.operation);
}
