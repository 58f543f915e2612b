import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { type NodeSettings, runItems } from '../shared/execution/itemRunner';
import { operations, properties } from './actions';

export class MediaGatewayCharacter implements INodeType {
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

	execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;

	/** n8n constructs the node without settings; tests pass their own (e.g. a faster retry policy). */
	constructor(settings: NodeSettings = {}) {
		this.execute = async function (this: IExecuteFunctions) {
			return await runItems.call(this, operations, settings);
		};
	}
}
