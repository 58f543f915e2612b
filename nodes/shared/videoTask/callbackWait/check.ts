/** Whether a batch is complete, decided by the gateway's own records of its tasks. */
import type { IWebhookFunctions } from 'n8n-workflow';

import { isFinalState, normaliseStatus } from '../../gateway/status';
import type { VideoTask } from '../task';
import { type CallbackBatch, taskIndexes } from './batch';
import { forEachLimited } from './limited';
import { readTask, rememberedFinal } from './memory';

/** The task reads of one check run this many at a time (free reads; Concurrency paces the paid creations and the downloads). */
export const READ_PARALLELISM = 20;

export type BatchCheck = { done: false } | { done: true; tasks: Map<number, VideoTask> };

/**
 * Asks the gateway for every other task of the batch that this process has not yet seen final, and
 * tells whether all are final now. One of them is read first: while the batch renders, that one is
 * usually still running, and then this callback is done after a single read. Only when it is final are
 * the rest read, all at once (up to READ_PARALLELISM), so the callback that completes the batch waits for
 * one round of reads, not one per Concurrency-sized slice.
 */
export async function checkBatch(
	ctx: IWebhookFunctions,
	batch: CallbackBatch,
	batchKey: string,
	confirmed: { itemIndex: number; task: VideoTask },
): Promise<BatchCheck> {
	const known = rememberedFinal(batchKey, batch);
	known.set(confirmed.itemIndex, confirmed.task);
	const unknown = taskIndexes(batch).filter((itemIndex) => !known.has(itemIndex));
	let unfinished = false;
	const read = async (itemIndex: number, stop: () => void) => {
		const entry = batch.entries[itemIndex] as { taskId: string };
		const task = await readTask(ctx, batchKey, itemIndex, entry.taskId);
		if (!isFinalState(normaliseStatus(task.status))) {
			unfinished = true;
			stop();
			return;
		}
		known.set(itemIndex, task);
	};
	await forEachLimited(unknown.slice(0, 1), 1, read);
	if (!unfinished) await forEachLimited(unknown.slice(1), READ_PARALLELISM, read);
	return unfinished ? { done: false } : { done: true, tasks: known };
}
