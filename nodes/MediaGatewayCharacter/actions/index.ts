/** The Character node's operations: the Operation parameter and one registration per operation. */
import type { INodeProperties } from 'n8n-workflow';

import type { OperationExecutor } from '../../shared/execution/itemRunner';
import { operationRegistry } from '../../shared/execution/registry';
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
			action: 'Create a character',
			description: 'Create a reusable character that keeps a subject consistent across videos',
		},
	],
	default: 'create',
};

export const { operations, properties } = operationRegistry(
	operationProperty,
	{ create },
	(operation): OperationExecutor => operation.execute,
);
