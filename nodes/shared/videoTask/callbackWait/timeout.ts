/**
 * The outcome n8n reports when the wait limit passes before the batch is done, prepared before
 * parking because n8n runs no node code then.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { errorItemJson } from '../../execution/errors';
import { normaliseStatus } from '../../gateway/status';
import { formatDuration, taskError, taskFailedError, type VideoTask, videoTaskJson } from '../task';
import type { CallbackBatch } from './batch';

function fetchAdvice(taskIds: string[]): string {
	const one = taskIds.length === 1;
	return (
		`${one ? 'The task' : 'These tasks'} may still be running on the gateway, or may have finished after the last callback n8n received. ` +
		`Fetch ${one ? 'it' : 'each'} with the Video node's "Get Task" or "Wait for Task" operation and Task ID ${taskIds.join(', ')}. ` +
		'If callbacks never arrive, check that the gateway can reach this n8n at its public URL (WEBHOOK_URL).'
	);
}

/**
 * Prepares what n8n reports if the wait limit passes first (n8n runs no node code then): an error
 * naming every task that was unfinished when the execution parked or, under Continue On Fail, one
 * item per input item: timed-out items for those tasks, beside the creation errors.
 */
export function armTimeout(
	ctx: IExecuteFunctions,
	batch: CallbackBatch,
	pending: number[],
	createdTasks: VideoTask[],
): void {
	const limit = formatDuration(batch.limitMs);
	const taskIds = pending.map(
		(itemIndex) => (batch.entries[itemIndex] as { taskId: string }).taskId,
	);
	if (!batch.continueOnFail) {
		const message =
			taskIds.length === 1 && batch.entries.length === 1
				? `Task ${taskIds[0]} sent no final callback within ${limit}`
				: `${taskIds.length} of ${batch.entries.length} video tasks did not report a final state within ${limit}: ${taskIds.join(', ')}`;
		ctx.setMetadata({
			resumeError: taskError(ctx, message, {
				itemIndex: pending[0],
				description: fetchAdvice(taskIds),
				task: { taskIds, timedOut: true },
			}),
		});
		return;
	}
	// Under Continue On Fail the node, disabled by n8n at the wait limit, passes its stack entry's
	// input through: that input becomes one timed-out (or creation error) item per input item.
	const timedOut: INodeExecutionData[] = batch.entries.map((entry, itemIndex) => {
		const pairedItem = { item: itemIndex };
		if (!('taskId' in entry)) return { json: entry.error, pairedItem };
		if (!pending.includes(itemIndex)) {
			// Final when it was created (a cached result): its creation answer is all n8n will know.
			const task = createdTasks[itemIndex];
			const json =
				normaliseStatus(task.status) === 'failed'
					? errorItemJson(taskFailedError(ctx, itemIndex, entry.taskId, task))
					: videoTaskJson(task, entry.taskId);
			return { json, pairedItem };
		}
		return {
			json: {
				error: `Task ${entry.taskId} did not report a final state within ${limit}`,
				description: fetchAdvice([entry.taskId]),
				taskId: entry.taskId,
				status: createdTasks[itemIndex].status ?? null,
				state: normaliseStatus(createdTasks[itemIndex].status),
				timedOut: true,
			},
			pairedItem,
		};
	});
	const stackEntry = ctx.getExecuteData();
	stackEntry.data = { ...stackEntry.data, main: [timedOut] };
}
