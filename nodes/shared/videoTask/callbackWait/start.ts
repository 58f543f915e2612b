/**
 * Starting a batch: check that this n8n can run the mode, read the limits, validate every item's
 * request before anything is billed, create the tasks with the node's Concurrency (the resume URL as
 * notifyHook), write the batch record, arm the timeout outcome and park the execution.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { type NodeApiError, NodeOperationError } from 'n8n-workflow';

import { asNodeError, errorItemJson } from '../../execution/errors';
import { readConcurrency } from '../../execution/itemRunner';
import { isFinalState, normaliseStatus } from '../../gateway/status';
import {
	assertTaskId,
	fetchVideoTask,
	resultOptions,
	type VideoTask,
	videoTaskJson,
} from '../task';
import { type BatchEntry, type CallbackBatch, taskIndexes, writeBatch } from './batch';
import { forEachLimited } from './limited';
import { batchOutput } from './output';
import { MAX_BATCH_ITEMS, readWaitLimitMs } from './properties';
import { armTimeout } from './timeout';

/** The resume URL of this execution, parsed with the URL API so its signature survives intact. */
function resumeUrl(ctx: IExecuteFunctions): string {
	const raw = ctx.evaluateExpression('{{ $execution.resumeUrl }}', 0);
	let url: URL;
	try {
		url = new URL(String(raw));
	} catch {
		throw new NodeOperationError(
			ctx.getNode(),
			'n8n did not provide a resume URL for this execution',
			{
				description:
					'Wait for Callback needs webhooks enabled on this n8n. Choose Wait Until Done instead.',
			},
		);
	}
	return url.toString();
}

/**
 * n8n 1.x (1.123 read here) cannot run this mode safely: it ignores a stack entry's `resumeError`
 * (a failed or timed-out batch would continue as a success) and claims a waiting execution without
 * a condition (two simultaneous final callbacks could resume it twice). Its execution context also
 * lacks `customData`, which 2.x added in the same line: that accessor is the feature checked here.
 */
export function assertCallbackWaitSupported(ctx: IExecuteFunctions): void {
	const supported =
		'customData' in ctx &&
		typeof ctx.getExecuteData === 'function' &&
		typeof ctx.setMetadata === 'function' &&
		typeof ctx.putExecutionToWait === 'function';
	if (!supported) {
		throw new NodeOperationError(ctx.getNode(), 'Completion "Wait for Callback" needs n8n 2.x', {
			description:
				'This n8n (1.x) cannot carry a failed or timed-out task across a resume, and could resume a waiting execution twice when two callbacks arrive together. Nothing was sent to the gateway. Choose Completion → Wait Until Done, or Return Task at Once with a Media Gateway Trigger (Callback URL).',
		});
	}
}

function createdList(created: Array<{ itemIndex: number; taskId: string }>): string {
	return created.map((c) => `item ${c.itemIndex}: ${c.taskId}`).join(', ');
}

/**
 * Creates every item's task with the resume URL as notifyHook and parks the execution. Returns what
 * the editor shows while the execution waits; on resume `webhook()` provides the real output.
 */
export async function startCallbackWait(
	ctx: IExecuteFunctions,
	buildRequest: (itemIndex: number, notifyHook: string) => Promise<() => Promise<VideoTask>>,
): Promise<INodeExecutionData[][]> {
	assertCallbackWaitSupported(ctx);
	const items = ctx.getInputData();
	if (items.length > MAX_BATCH_ITEMS) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Wait for Callback takes at most ${MAX_BATCH_ITEMS} items per execution; this node received ${items.length}`,
			{
				description: `Nothing was sent to the gateway. Put a Loop Over Items node with batch size ${MAX_BATCH_ITEMS} before this node, or choose Completion → Return Task at Once with a Media Gateway Trigger for larger volumes.`,
			},
		);
	}
	const limitMs = readWaitLimitMs(ctx);
	const concurrency = readConcurrency(ctx);
	const continueOnFail = ctx.continueOnFail();
	const notifyHook = resumeUrl(ctx);

	// 1. Every item's request is read and validated before anything is created (and billed).
	const entries: Array<BatchEntry | undefined> = new Array(items.length);
	const senders: Array<(() => Promise<VideoTask>) | undefined> = new Array(items.length);
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			senders[itemIndex] = await buildRequest(itemIndex, notifyHook);
		} catch (caught) {
			const error = asNodeError(ctx.getNode(), caught, itemIndex);
			if (!continueOnFail) throw error;
			entries[itemIndex] = { error: errorItemJson(error) };
		}
	}

	// 2. The tasks are created with the node's Concurrency.
	const createdTasks: VideoTask[] = new Array(items.length);
	const created: Array<{ itemIndex: number; taskId: string }> = [];
	let firstFailure: NodeApiError | NodeOperationError | undefined;
	const toCreate = senders.flatMap((send, itemIndex) => (send ? [itemIndex] : []));
	await forEachLimited(toCreate, concurrency, async (itemIndex, stop) => {
		try {
			const task = await senders[itemIndex]!();
			const taskId = assertTaskId(ctx, task.id, itemIndex, 'The task ID the gateway returned');
			createdTasks[itemIndex] = task;
			entries[itemIndex] = { taskId, options: resultOptions(ctx, itemIndex) };
			created.push({ itemIndex, taskId });
		} catch (caught) {
			const error = asNodeError(ctx.getNode(), caught, itemIndex);
			if (continueOnFail) {
				entries[itemIndex] = { error: errorItemJson(error) };
			} else if (!firstFailure) {
				firstFailure = error;
				stop();
			}
		}
	});
	if (firstFailure) {
		if (created.length > 0) {
			created.sort((a, b) => a.itemIndex - b.itemIndex);
			firstFailure.description =
				`${firstFailure.description ?? ''} The tasks already created for other items keep rendering on the gateway: ${createdList(created)}. Fetch them with the Video node's "Get Task" or "Wait for Task" operation.`.trim();
		}
		throw firstFailure;
	}

	const batch: CallbackBatch = {
		version: 1,
		entries: entries as BatchEntry[],
		continueOnFail,
		concurrency,
		limitMs,
	};
	const pending = batch.entries.flatMap((entry, itemIndex) =>
		'taskId' in entry && !isFinalState(normaliseStatus(createdTasks[itemIndex].status))
			? [itemIndex]
			: [],
	);
	if (pending.length === 0) {
		// Nothing left to wait for (cached results, or every creation failed under Continue On Fail).
		const tasks = new Map<number, VideoTask>();
		await forEachLimited(taskIndexes(batch), concurrency, async (itemIndex) => {
			const entry = batch.entries[itemIndex] as { taskId: string };
			tasks.set(itemIndex, await fetchVideoTask(ctx, itemIndex, entry.taskId));
		});
		const outcome = await batchOutput(ctx, batch, tasks);
		if (outcome.failure) throw outcome.failure;
		return [outcome.items];
	}

	writeBatch(ctx, batch);
	armTimeout(ctx, batch, pending, createdTasks);
	await ctx.putExecutionToWait(new Date(Date.now() + limitMs));
	return [
		batch.entries.map((entry, itemIndex) => ({
			json:
				'taskId' in entry
					? { ...videoTaskJson(createdTasks[itemIndex], entry.taskId), waitingForCallback: true }
					: entry.error,
			pairedItem: { item: itemIndex },
		})),
	];
}
