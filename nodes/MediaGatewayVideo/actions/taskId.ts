import type { INodeProperties } from 'n8n-workflow';

export function taskIdProperty(operation: string): INodeProperties {
	return {
		displayName: 'Task ID',
		name: 'taskId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. {{ $json.taskId }}',
		displayOptions: { show: { operation: [operation] } },
		description: 'The ID a create operation returned',
	};
}
