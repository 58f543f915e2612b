import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { itemNode } from '../shared/execution/nodeClass';
import { operations, properties } from './actions';

export class MediaGatewayCharacter extends itemNode(operations) implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Gateway Character',
		name: 'mediaGatewayCharacter',
		icon: { light: 'file:mediaGatewayCharacter.svg', dark: 'file:mediaGatewayCharacter.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ "create: " + $parameter["name"] }}',
		description: 'Create reusable characters that keep subjects consistent across videos',
		defaults: { name: 'Media Gateway Character' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'mediaGatewayApi', required: true }],
		properties,
	};
}
