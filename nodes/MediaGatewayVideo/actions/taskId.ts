import type { INodeProperties } from 'n8n-workflow';

/** The Task ID parameter of Get Task and Wait for Task. */
export const taskIdProperty: INodeProperties = {
	displayName: 'Task ID',
	name: 'taskId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. {{ $json.taskId }}',
	description: 'The ID a create operation returned',
};
