import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { routeItems } from '../shared/router';
import { operations, properties } from './actions';

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
		properties,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await routeItems.call(this, operations);
	}
}
