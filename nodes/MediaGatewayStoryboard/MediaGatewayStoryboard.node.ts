import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { type ItemRun, routeItems } from '../shared/router';
import { videoCreateSchema } from '../shared/schemas';
import { stringParameter } from '../shared/validation';
import {
	callbackUrlProperty,
	completionProperties,
	createVideoTask,
	modelTierProperty,
	readCallbackUrl,
} from '../shared/videoCompletion';
import { readScenes, sceneProperties } from './scenes';

const operations = ['create'];

const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create a storyboard video',
				description: 'Create one video from an ordered list of scenes',
			},
		],
		default: 'create',
	},
	...sceneProperties,
	modelTierProperty(operations),
	{
		displayName: 'Size',
		name: 'size',
		type: 'string',
		default: '1280x720',
		placeholder: '1280x720',
		displayOptions: { show: { operation: operations } },
		description: 'Frame size as <width>x<height>. Leave empty for the gateway default.',
	},
	callbackUrlProperty(operations),
	...completionProperties(operations),
];

async function create(this: IExecuteFunctions, itemIndex: number, run: ItemRun): Promise<INodeExecutionData[]> {
	return await createVideoTask(this, itemIndex, run, {
		path: '/v1/videos',
		schema: videoCreateSchema,
		body: {
			model: stringParameter(this, 'model', itemIndex, 'Quality Tier'),
			size: stringParameter(this, 'size', itemIndex, 'Size'),
			storyboard: readScenes(this, itemIndex) as never,
			notifyHook: readCallbackUrl(this, itemIndex),
		},
	});
}

export class MediaGatewayStoryboard implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Gateway Storyboard',
		name: 'mediaGatewayStoryboard',
		icon: { light: 'file:mediaGatewayStoryboard.svg', dark: 'file:mediaGatewayStoryboard.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ "storyboard" + ($parameter["model"] === "vidmodel-pro" ? " (pro)" : "") }}',
		description: 'Create a multi-scene video from an ordered list of scenes',
		defaults: { name: 'Media Gateway Storyboard' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'mediaGatewayApi', required: true }],
		properties,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await routeItems.call(this, { create });
	}
}
