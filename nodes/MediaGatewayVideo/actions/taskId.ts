import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { assertTaskId } from '../../shared/videoTask/task';

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

/** The item's Task ID, checked before any request (an id that would change the request path is refused). */
export function readTaskId(ctx: IExecuteFunctions, itemIndex: number): string {
	return assertTaskId(
		ctx,
		ctx.getNodeParameter(taskIdProperty.name, itemIndex),
		itemIndex,
		taskIdProperty.displayName,
	);
}
