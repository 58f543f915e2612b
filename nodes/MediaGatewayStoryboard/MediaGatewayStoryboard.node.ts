import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { callbackWaitWebhook, callbackWaitWebhookMethods, callbackWaitWebhooks } from '../shared/videoTask/callbackWait';
import { videoCreateSchema } from '../shared/gateway/schemas';
import { stringParameter } from '../shared/gateway/validation';
import {
	callbackUrlProperty,
	completionProperties,
	executeVideoNode,
	modelTierProperty,
	readCallbackUrl,
	type VideoRequest,
	videoCreateExecutor,
} from '../shared/videoTask/completion';
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
		description: 'Frame size as &lt;width&gt;x&lt;height&gt;. Leave empty for the gateway default.',
	},
	callbackUrlProperty(operations),
	...completionProperties(operations),
];

/** The request that creates this item's storyboard task. */
async function build(ctx: IExecuteFunctions, itemIndex: number): Promise<VideoRequest> {
	return {
		path: '/v1/videos',
		schema: videoCreateSchema,
		body: {
			model: stringParameter(ctx, 'model', itemIndex, 'Quality Tier'),
			size: stringParameter(ctx, 'size', itemIndex, 'Size'),
			storyboard: readScenes(ctx, itemIndex) as never,
			notifyHook: readCallbackUrl(ctx, itemIndex),
		},
	};
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
		webhooks: callbackWaitWebhooks,
		properties,
	};

	webhookMethods = callbackWaitWebhookMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeVideoNode.call(this, { create: videoCreateExecutor(build) }, { create: build });
	}

	/** Receives the gateway's callbacks while an execution waits (Completion → Wait for Callback). */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await callbackWaitWebhook(this);
	}
}
