import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import type { NodeSettings } from '../shared/execution/itemRunner';
import { callbackWaitWebhook, callbackWaitWebhookMethods, callbackWaitWebhooks } from '../shared/videoTask/callbackWait';
import { executeVideoNode } from '../shared/videoTask/completion';
import { operations, properties } from './actions';

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

	execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;

	/** n8n constructs the node without settings; tests pass their own (e.g. a faster retry policy). */
	constructor(settings: NodeSettings = {}) {
		this.execute = async function (this: IExecuteFunctions) {
			return await executeVideoNode.call(this, operations, settings);
		};
	}

	/** Receives the gateway's callbacks while an execution waits (Completion → Wait for Callback). */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await callbackWaitWebhook(this);
	}
}
