/**
 * What happens to a video task once an operation has created it, in the completion mode the user
 * chose (docs/gateway-interface.md, "Videos" and "Callbacks"): return it at once, poll it until it
 * is done, or park the whole execution until the gateway's callbacks report every task finished.
 * Every operation that creates a video task registers a request builder, once; this file makes
 * both the per-item executor and the Wait for Callback batch from it.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { ZodType, ZodTypeDef } from 'zod/v3';

import {
	type ItemRun,
	type NodeSettings,
	type OperationExecutor,
	runItems,
	transportOptions,
} from '../execution/itemRunner';
import { compact, type FieldLabels, validateBody } from '../gateway/validation';
import { gatewayRequest, type TransportOptions } from '../transport/request';
import { startCallbackWait } from './callbackWait';
import { readPollSettings } from './properties';
import {
	assertTaskId,
	finishedVideoItem,
	type PollSettings,
	resultOptions,
	type VideoTask,
	videoTaskJson,
	waitForVideoTask,
} from './task';

export type CompletionMode = 'returnTask' | 'poll' | 'callback';

/**
 * The completion mode an item asks for: the one place the parameter is read. Wait for Callback
 * parks the whole execution, so `executeVideoNode` asks for the first item's mode and decides for
 * all; every other mode is an item's own plan.
 */
function completionMode(ctx: IExecuteFunctions, itemIndex: number): CompletionMode {
	return ctx.getNodeParameter('completion', itemIndex, 'poll') as CompletionMode;
}

/** How an item's task is completed, read (and checked) before the task is created and billed. */
export type CompletionPlan = { mode: 'returnTask' } | { mode: 'poll'; settings: PollSettings };

function readCompletionPlan(ctx: IExecuteFunctions, itemIndex: number): CompletionPlan {
	const mode = completionMode(ctx, itemIndex);
	if (mode === 'returnTask') return { mode };
	if (mode === 'poll') return { mode, settings: readPollSettings(ctx, itemIndex) };
	throw new NodeOperationError(ctx.getNode(), `Completion "${String(mode)}" cannot be used here`, {
		itemIndex,
		description:
			mode === 'callback'
				? 'Wait for Callback applies to the whole execution; it is handled before items are processed.'
				: 'Choose Return Task at Once, Wait Until Done or Wait for Callback.',
	});
}

/** After creation: return the task, or wait for it and return the finished video. */
async function completeVideoTask(
	ctx: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
	created: VideoTask,
	plan: CompletionPlan,
): Promise<INodeExecutionData[]> {
	const taskId = assertTaskId(ctx, created.id, itemIndex, 'The task ID the gateway returned');
	run.recordTask(taskId);
	if (plan.mode === 'returnTask') return [{ json: videoTaskJson(created, taskId) }];
	const task = await waitForVideoTask(ctx, itemIndex, taskId, plan.settings, run);
	return [
		await finishedVideoItem(
			ctx,
			itemIndex,
			task,
			taskId,
			resultOptions(ctx, itemIndex),
			run.transport,
		),
	];
}

/** The request that creates one item's task: endpoint, schema, body and the labels of its fields. */
export interface VideoRequest {
	path: string;
	schema: ZodType<IDataObject, ZodTypeDef, unknown>;
	body: IDataObject;
	labels: FieldLabels;
}

/** Reads one item's parameters into the request that creates its task. */
export type VideoRequestBuilder = (
	ctx: IExecuteFunctions,
	itemIndex: number,
) => Promise<VideoRequest>;

/** An operation that creates a video task: registered once, by its request builder. */
export interface TaskCreatingOperation {
	createTask: VideoRequestBuilder;
}

/** What a video node registers per operation: a task creation, or a plain executor (Get, Wait). */
export type VideoOperation = TaskCreatingOperation | OperationExecutor;

/** What a video operation file exports: its panel parameters and either a request builder or an execute. */
export type VideoOperationFile = { description: INodeProperties[] } & (
	{ createTask: VideoRequestBuilder } | { execute: OperationExecutor }
);

/** What a video node registers for one operation file: its request builder when it creates a task, else its execute. */
export function videoOperation(file: VideoOperationFile): VideoOperation {
	return 'createTask' in file ? { createTask: file.createTask } : file.execute;
}

function isTaskCreating(operation: VideoOperation | undefined): operation is TaskCreatingOperation {
	return typeof operation === 'object' && operation !== null && 'createTask' in operation;
}

/** Reads and validates one item's request; the returned function creates (and bills) the task. */
async function prepareVideoRequest(
	ctx: IExecuteFunctions,
	itemIndex: number,
	request: VideoRequest,
	transport: TransportOptions,
): Promise<() => Promise<VideoTask>> {
	const body = validateBody(ctx, request.schema, compact(request.body), itemIndex, request.labels);
	return async () =>
		await gatewayRequest<VideoTask>(ctx, {
			method: 'POST',
			path: request.path,
			body,
			itemIndex,
			...transport,
		});
}

/** An operation executor that creates the task and completes it as the user chose. */
function taskCreatingExecutor(build: VideoRequestBuilder): OperationExecutor {
	return async function (this: IExecuteFunctions, itemIndex: number, run: ItemRun) {
		const plan = readCompletionPlan(this, itemIndex);
		const create = await prepareVideoRequest(
			this,
			itemIndex,
			await build(this, itemIndex),
			run.transport,
		);
		return await completeVideoTask(this, itemIndex, run, await create(), plan);
	};
}

/**
 * The execute() of every node that creates video tasks. "Wait for Callback" parks the whole
 * execution once for all items, so it cannot run inside the per-item runner; every other mode
 * goes through it.
 */
export async function executeVideoNode(
	this: IExecuteFunctions,
	operations: Record<string, VideoOperation>,
	settings: NodeSettings = {},
): Promise<INodeExecutionData[][]> {
	const operation = operations[this.getNodeParameter('operation', 0) as string];
	if (
		this.getInputData().length > 0 &&
		isTaskCreating(operation) &&
		completionMode(this, 0) === 'callback'
	) {
		const transport = transportOptions(settings);
		return await startCallbackWait(this, async (itemIndex, notifyHook) => {
			const request = await operation.createTask(this, itemIndex);
			return await prepareVideoRequest(
				this,
				itemIndex,
				{ ...request, body: { ...request.body, notifyHook } },
				transport,
			);
		});
	}
	const executors = Object.fromEntries(
		Object.entries(operations).map(([name, registered]) => [
			name,
			isTaskCreating(registered) ? taskCreatingExecutor(registered.createTask) : registered,
		]),
	);
	return await runItems.call(this, executors, settings);
}
