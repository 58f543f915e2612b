import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { callbackWaitWebhook, callbackWaitWebhookMethods, callbackWaitWebhooks } from '../shared/videoTask/callbackWait';
import { executeVideoNode } from '../shared/videoTask/completion';
import { operations, properties, requestBuilders } from './actions';

export class MediaGatewayVideo implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Gateway Video',
		name: 'mediaGatewayVideo',
		icon: { light: 'file:mediaGatewayVideo.svg', dark: 'file:mediaGatewayVideo.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ($parameter["model"] === "vidmodel-pro" ? " (pro)" : "") }}',
		description: 'Create videos from text or an image, standard or pro quality, and wait for them',
		defaults: { name: 'Media Gateway Video' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'mediaGatewayApi', required: true }],
		webhooks: callbackWaitWebhooks,
		properties,
	};

	webhookMethods = callbackWaitWebhookMethods;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeVideoNode.call(this, operations, requestBuilders);
	}

	/** Receives the gateway's callbacks while an execution waits (Completion → Wait for Callback). */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await callbackWaitWebhook(this);
	}
}
