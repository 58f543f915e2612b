/**
 * Errors as items leave a node: an n8n error that knows its item, and the fields "Continue On Fail"
 * writes into the error item.
 */
import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** The task fields an error about gateway tasks (one, or several of a batch) carries into the error item. */
export interface GatewayTaskFields extends IDataObject {
	taskId?: string;
	taskIds?: string[];
	status?: IDataObject[string] | null;
	state?: string;
	timedOut?: boolean;
	failReason?: string | null;
}

/**
 * A failure of one gateway task (it failed, or did not finish in time): the message and advice of a
 * NodeOperationError, and the task's fields, which Continue On Fail outputs beside the message.
 */
export class GatewayTaskError extends NodeOperationError {
	/** Named as the error items have always read it; set once, never patched on afterwards. */
	readonly gatewayTask: GatewayTaskFields;

	constructor(
		node: INode,
		message: string,
		options: { itemIndex?: number; description: string; task: GatewayTaskFields },
	) {
		super(node, message, { itemIndex: options.itemIndex, description: options.description });
		// n8n's own name: n8n-core re-throws a stored error (Wait for Callback's resumeError) as it is
		// only when it is named NodeOperationError or NodeApiError, otherwise without its description.
		this.name = 'NodeOperationError';
		this.gatewayTask = options.task;
	}
}

/** Every failure leaves an item as an n8n error that knows its item. */
export function asNodeError(
	node: INode,
	caught: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (caught instanceof NodeApiError || caught instanceof NodeOperationError) {
		if (caught.context.itemIndex === undefined) caught.context.itemIndex = itemIndex;
		return caught;
	}
	return new NodeOperationError(node, caught as Error, { itemIndex });
}

/**
 * The JSON of the item "Continue On Fail" outputs for an error: its message and advice, the tasks the
 * item created before it failed (`createdTaskIds`), and a GatewayTaskError's own task fields last.
 */
export function errorItemJson(
	error: NodeApiError | NodeOperationError,
	createdTaskIds: string[] = [],
): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	if (createdTaskIds.length === 1) json.taskId = createdTaskIds[0];
	else if (createdTaskIds.length > 1) json.taskIds = createdTaskIds;
	if (error instanceof GatewayTaskError) Object.assign(json, error.gatewayTask);
	return json;
}
