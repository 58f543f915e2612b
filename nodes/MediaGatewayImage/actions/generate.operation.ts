import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import {
	IMAGE_STYLE_TYPES,
	MAGIC_PROMPT_OPTIONS,
	RENDERING_SPEEDS,
	imageGenerateSchema,
} from '../../shared/gateway/schemas';
import { stringParameter } from '../../shared/gateway/validation';
import { promptProperty, sendImageRequest } from './common';

const show = { operation: ['generate'] };

const labelled = (values: readonly string[]) => values.map((value) => ({ name: value, value }));

export const properties: INodeProperties[] = [
	promptProperty('generate', 'Description of the image. The model renders legible text, so you can quote words to appear in it.'),
	{
		displayName: 'Aspect Ratio',
		name: 'aspectRatio',
		type: 'options',
		options: [
			{ name: 'Square (ASPECT_1_1)', value: 'ASPECT_1_1' },
			{ name: 'Landscape (ASPECT_16_9)', value: 'ASPECT_16_9' },
			{ name: 'Portrait (ASPECT_9_16)', value: 'ASPECT_9_16' },
			{ name: 'Gateway Default', value: '' },
		],
		default: 'ASPECT_1_1',
		displayOptions: { show },
		description:
			'The gateway accepts more ratios than listed (ASPECT_&lt;width&gt;_&lt;height&gt;, e.g. ASPECT_4_3): switch to Expression to enter one',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Magic Prompt',
				name: 'magicPromptOption',
				type: 'options',
				options: labelled(MAGIC_PROMPT_OPTIONS),
				default: 'AUTO',
				description: 'Whether the gateway rewrites the prompt to add detail',
			},
			{
				displayName: 'Model Version',
				name: 'model',
				type: 'string',
				default: 'V_3',
				description: 'The gateway model version; V_3 unless the gateway offers another',
			},
			{
				displayName: 'Negative Prompt',
				name: 'negativePrompt',
				type: 'string',
				typeOptions: { rows: 2 },
				default: '',
				description: 'Things to keep out of the image',
			},
			{
				displayName: 'Rendering Speed',
				name: 'renderingSpeed',
				type: 'options',
				options: labelled(RENDERING_SPEEDS),
				default: 'DEFAULT',
				description: 'TURBO is faster and cheaper, QUALITY slower and more detailed',
			},
			{
				displayName: 'Style',
				name: 'styleType',
				type: 'options',
				options: labelled(IMAGE_STYLE_TYPES),
				default: 'AUTO',
			},
		],
	},
	optionsCollection('generate', downloadOptions('Image', true)),
];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as Record<string, string>;
	return await sendImageRequest(this, itemIndex, {
		operation: 'generate',
		endpoint: 'generate',
		schema: imageGenerateSchema,
		body: {
			prompt: stringParameter(this, 'prompt', itemIndex, 'Prompt'),
			aspect_ratio: stringParameter(this, 'aspectRatio', itemIndex, 'Aspect Ratio'),
			model: (extra.model ?? '').trim() || 'V_3',
			magic_prompt_option: extra.magicPromptOption,
			rendering_speed: extra.renderingSpeed,
			style_type: extra.styleType,
			negative_prompt: extra.negativePrompt,
		},
	});
}
