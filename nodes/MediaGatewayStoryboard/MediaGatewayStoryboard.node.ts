import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { callbackWaitWebhooks } from '../shared/videoTask/callbackWait';
import { videoTaskNode } from '../shared/videoTask/node';
import { operations, properties } from './actions';

export class MediaGatewayStoryboard extends videoTaskNode(operations) implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Gateway Storyboard',
		name: 'mediaGatewayStoryboard',
		icon: {
			light: 'file:mediaGatewayStoryboard.svg',
			dark: 'file:mediaGatewayStoryboard.dark.svg',
		},
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
}
