import type { IDataObject, INodeProperties } from 'n8n-workflow';

import {
	IMAGE_STYLE_TYPES,
	MAGIC_PROMPT_OPTIONS,
	RENDERING_SPEEDS,
	imageGenerateSchema,
} from '../../shared/gateway/schemas';
import { fieldLabels } from '../../shared/gateway/validation';
import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import { promptProperty } from '../../shared/parameters/prompt';
import { readText } from '../../shared/parameters/read';
import { imageOperation } from './request';

const labelled = (values: readonly string[]) => values.map((value) => ({ name: value, value }));

const prompt = promptProperty({
	description:
		'Description of the image. The model renders legible text, so you can quote words to appear in it.',
	placeholder: 'e.g. A red fox reading a newspaper titled "Morning News", watercolor',
});
const aspectRatio: INodeProperties = {
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
	description:
		'The gateway accepts more ratios than listed (ASPECT_&lt;width&gt;_&lt;height&gt;, e.g. ASPECT_4_3): switch to Expression to enter one',
};
const magicPrompt: INodeProperties = {
	displayName: 'Magic Prompt',
	name: 'magicPromptOption',
	type: 'options',
	options: labelled(MAGIC_PROMPT_OPTIONS),
	default: 'AUTO',
	description: 'Whether the gateway rewrites the prompt to add detail',
};
const model: INodeProperties = {
	displayName: 'Model Version',
	name: 'model',
	type: 'string',
	default: 'V_3',
	description: 'The gateway model version; V_3 unless the gateway offers another',
};
const negativePrompt: INodeProperties = {
	displayName: 'Negative Prompt',
	name: 'negativePrompt',
	type: 'string',
	typeOptions: { rows: 2 },
	default: '',
	description: 'Things to keep out of the image',
};
const renderingSpeed: INodeProperties = {
	displayName: 'Rendering Speed',
	name: 'renderingSpeed',
	type: 'options',
	options: labelled(RENDERING_SPEEDS),
	default: 'DEFAULT',
	description: 'TURBO is faster and cheaper, QUALITY slower and more detailed',
};
const style: INodeProperties = {
	displayName: 'Style',
	name: 'styleType',
	type: 'options',
	options: labelled(IMAGE_STYLE_TYPES),
	default: 'AUTO',
};

export const { description, execute } = imageOperation({
	operation: 'generate',
	endpoint: 'generate',
	schema: imageGenerateSchema,
	properties: [
		prompt,
		aspectRatio,
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: [magicPrompt, model, negativePrompt, renderingSpeed, style],
		},
		optionsCollection(downloadOptions('Image', true)),
	],
	body: (ctx, itemIndex) => {
		const extra = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
		const field = (parameter: INodeProperties) => extra[parameter.name] as string | undefined;
		return {
			prompt: readText(ctx, prompt, itemIndex),
			aspect_ratio: readText(ctx, aspectRatio, itemIndex),
			model: (field(model) ?? '').trim() || 'V_3',
			magic_prompt_option: field(magicPrompt),
			rendering_speed: field(renderingSpeed),
			style_type: field(style),
			negative_prompt: field(negativePrompt),
		};
	},
	labels: fieldLabels({
		prompt,
		aspect_ratio: aspectRatio,
		model,
		magic_prompt_option: magicPrompt,
		rendering_speed: renderingSpeed,
		style_type: style,
		negative_prompt: negativePrompt,
	}),
});
