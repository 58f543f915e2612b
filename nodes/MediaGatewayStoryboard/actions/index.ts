/** The Storyboard node's operations: the Operation parameter and one registration per operation. */
import type { INodeProperties } from 'n8n-workflow';

import { operationRegistry } from '../../shared/execution/registry';
import { videoOperation } from '../../shared/videoTask/completion';
import * as create from './create.operation';

export const operationProperty: INodeProperties = {
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
};

export const { operations, properties } = operationRegistry(
	operationProperty,
	{ create },
	videoOperation,
);
