import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { callbackWaitWebhooks } from '../shared/videoTask/callbackWait';
import { videoTaskNode } from '../shared/videoTask/node';
import { operations, properties } from './actions';

export class MediaGatewayVideo extends videoTaskNode(operations) implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Gateway Video',
		name: 'mediaGatewayVideo',
		icon: { light: 'file:mediaGatewayVideo.svg', dark: 'file:mediaGatewayVideo.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle:
			'={{ $parameter["operation"] + ($parameter["model"] === "vidmodel-pro" ? " (pro)" : "") }}',
		description: 'Create videos from text or an image, standard or pro quality, and wait for them',
		defaults: { name: 'Media Gateway Video' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'mediaGatewayApi', required: true }],
		webhooks: callbackWaitWebhooks,
		properties,
	};
}
