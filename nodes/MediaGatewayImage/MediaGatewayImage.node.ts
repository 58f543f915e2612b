import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { type NodeSettings, runItems } from '../shared/execution/itemRunner';
import { operations, properties } from './actions';

export class MediaGatewayImage implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Gateway Image',
		name: 'mediaGatewayImage',
		icon: { light: 'file:mediaGatewayImage.svg', dark: 'file:mediaGatewayImage.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] }}',
		description: 'Generate, edit, remix, reframe images and replace their background through the media gateway',
		defaults: { name: 'Media Gateway Image' },
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
