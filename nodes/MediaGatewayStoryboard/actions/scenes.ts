/** The ordered scenes of a storyboard: entered as a list or as JSON (docs/gateway-interface.md, "Storyboards"). */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyCollection,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { FieldLabels } from '../../shared/gateway/validation';
import { durationProperty } from '../../shared/videoTask/properties';

const scenePrompt: INodeProperties = {
	displayName: 'Prompt',
	name: 'prompt',
	type: 'string',
	typeOptions: { rows: 2 },
	default: '',
	required: true,
	placeholder: 'e.g. A paper boat is set down on a puddle',
	description: 'What happens in this scene',
};

const sceneDuration = durationProperty('scene');

const scene: INodePropertyCollection = {
	name: 'scene',
	displayName: 'Scene',
	values: [scenePrompt, sceneDuration],
};

/** The labels of the `storyboard` body field and of each scene's fields. */
export const sceneLabels: FieldLabels = {
	storyboard: scene.displayName,
	'storyboard.prompt': scenePrompt.displayName,
	'storyboard.duration': sceneDuration.displayName,
};

export const sceneProperties: INodeProperties[] = [
	{
		displayName: 'Scenes Input',
		name: 'scenesInput',
		type: 'options',
		options: [
			{
				name: 'List',
				value: 'list',
				description: 'Add scenes one by one below and drag them into order',
			},
			{
				name: 'JSON',
				value: 'json',
				description:
					'A JSON array of {"prompt", "duration"} objects, e.g. built by an expression from a sheet or an AI node',
			},
		],
		default: 'list',
	},
	{
		displayName: 'Scenes',
		name: 'scenes',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true, multipleValueButtonText: 'Add Scene' },
		default: { scene: [{ prompt: '', duration: 5 }] },
		placeholder: 'Add Scene',
		displayOptions: { show: { scenesInput: ['list'] } },
		description: 'The scenes in the order they play. Drag to reorder.',
		options: [scene],
	},
	{
		displayName: 'Scenes (JSON)',
		name: 'scenesJson',
		type: 'json',
		default:
			'[\n  { "prompt": "A sunrise over a quiet harbour", "duration": 4 },\n  { "prompt": "Fishing boats leave the harbour", "duration": 4 }\n]',
		displayOptions: { show: { scenesInput: ['json'] } },
		description:
			'An array of scenes in play order, each {"prompt": text, "duration": whole number}',
	},
];

/** Reads the scenes in the order the user sees them; shape errors name the scene. */
export function readScenes(ctx: IExecuteFunctions, itemIndex: number): unknown {
	const input = ctx.getNodeParameter('scenesInput', itemIndex, 'list') as string;
	if (input === 'json') {
		let value = ctx.getNodeParameter('scenesJson', itemIndex, '[]') as unknown;
		if (typeof value === 'string') {
			try {
				value = JSON.parse(value);
			} catch (error) {
				throw new NodeOperationError(ctx.getNode(), 'Scenes (JSON) is not valid JSON', {
					itemIndex,
					description: `${(error as Error).message}. Enter an array such as [{"prompt": "…", "duration": 4}].`,
				});
			}
		}
		if (!Array.isArray(value)) {
			throw new NodeOperationError(ctx.getNode(), 'Scenes (JSON) must be an array of scenes', {
				itemIndex,
				description:
					'Enter an array such as [{"prompt": "…", "duration": 4}], or switch Scenes Input to List.',
			});
		}
		// Expressions often hand over numbers as text ("4"); the gateway wants integers.
		return value.map((scene: unknown) =>
			scene && typeof scene === 'object' && !Array.isArray(scene)
				? { ...(scene as IDataObject), duration: numeric((scene as IDataObject).duration) }
				: scene,
		);
	}
	const list = ctx.getNodeParameter('scenes.scene', itemIndex, []) as IDataObject[];
	return list.map((scene) => ({
		prompt: typeof scene.prompt === 'string' ? scene.prompt.trim() : scene.prompt,
		duration: numeric(scene.duration),
	}));
}

function numeric(value: unknown): unknown {
	return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))
		? Number(value)
		: value;
}
