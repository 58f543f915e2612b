/** The Video node's operations: the Operation parameter and one registration per operation. */
import type { INodeProperties } from 'n8n-workflow';

import { operationRegistry } from '../../shared/execution/registry';
import { videoOperation } from '../../shared/videoTask/completion';
import * as create from './create.operation';
import * as createUnified from './createUnified.operation';
import * as get from './get.operation';
import * as wait from './wait.operation';

export const operationProperty: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Create',
			value: 'create',
			action: 'Create a video',
			description:
				'Create a video from a prompt, optionally from a reference image, with size and duration (POST /v1/videos)',
		},
		{
			name: 'Create (Unified)',
			value: 'createUnified',
			action: 'Create a video with an aspect ratio',
			description: 'Create a video from a prompt and an aspect ratio (POST /v1/video/create)',
		},
		{
			name: 'Get Task',
			value: 'get',
			action: 'Get a video task',
			description: 'Read the current status of a video task',
		},
		{
			name: 'Wait for Task',
			value: 'wait',
			action: 'Wait for a video task',
			description: 'Poll an existing task until its video is ready',
		},
	],
	default: 'create',
};

/** Every operation once. A task-creating operation registers its request builder; Get and Wait their execute. */
export const { operations, properties } = operationRegistry(
	operationProperty,
	{ create, createUnified, get, wait },
	videoOperation,
);
