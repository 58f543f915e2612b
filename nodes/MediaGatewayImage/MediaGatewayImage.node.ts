import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { itemNode } from '../shared/execution/nodeClass';
import { operations, properties } from './actions';

export class MediaGatewayImage extends itemNode(operations) implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Gateway Image',
		name: 'mediaGatewayImage',
		icon: { light: 'file:mediaGatewayImage.svg', dark: 'file:mediaGatewayImage.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] }}',
		description:
			'Generate, edit, remix, reframe images and replace their background through the media gateway',
		defaults: { name: 'Media Gateway Image' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'mediaGatewayApi', required: true }],
		properties,
	};
}
