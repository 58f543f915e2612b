/** The Image node's operations: the Operation parameter and one registration per operation. */
import type { INodeProperties } from 'n8n-workflow';

import type { OperationExecutor } from '../../shared/execution/itemRunner';
import { operationRegistry } from '../../shared/execution/registry';
import * as edit from './edit.operation';
import * as generate from './generate.operation';
import * as reframe from './reframe.operation';
import * as remix from './remix.operation';
import * as replaceBackground from './replaceBackground.operation';

export const operationProperty: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Edit',
			value: 'edit',
			action: 'Edit an image',
			description: 'Change part of an image from a prompt, optionally within a mask',
		},
		{
			name: 'Generate',
			value: 'generate',
			action: 'Generate an image',
			description: 'Create images from a text prompt',
		},
		{
			name: 'Reframe',
			value: 'reframe',
			action: 'Reframe an image',
			description: 'Extend the canvas of an image to a new size',
		},
		{
			name: 'Remix',
			value: 'remix',
			action: 'Remix an image',
			description: 'Create a variant of a reference image with a new prompt',
		},
		{
			name: 'Replace Background',
			value: 'replaceBackground',
			action: 'Replace the background of an image',
			description: 'Keep the detected subject and paint a new background',
		},
	],
	default: 'generate',
};

/** Every operation once: its panel parameters and its execute, in the order the panel lists them. */
export const { operations, properties } = operationRegistry(
	operationProperty,
	{ generate, edit, remix, reframe, replaceBackground },
	(operation): OperationExecutor => operation.execute,
);
