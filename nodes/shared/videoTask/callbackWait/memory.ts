/** What one process remembers about the batches whose callbacks it receives (module state: each process starts with none). */
import type { IWebhookFunctions } from 'n8n-workflow';

import { isFinalState, normaliseStatus } from '../../gateway/status';
import { fetchVideoTask, type VideoTask } from '../task';
import type { CallbackBatch } from './batch';

/**
 * Per-process coordination of one execution's callbacks. Only an optimisation: callbacks on other
 * processes still compete, and n8n's conditional claim of the waiting execution decides which resume
 * runs. It matters because every callback n8n hands to this webhook already costs it a read of the
 * waiting execution and an expression isolate (n8n 2.41's waiting-webhooks.js), and every gateway
 * request from here adds to that, so a retry storm of N final callbacks must not mean N checks of the
 * batch and N downloads of every video:
 * - the checks of one execution run one after another; once one found the batch complete, the
 *   others (and later callbacks) stop at once, without asking the gateway anything;
 * - that memory is kept while the output is built and RESUME_MEMORY_MS after (until n8n has marked
 *   the execution running, after which n8n itself refuses callbacks), then forgotten, so a resume
 *   that n8n could not start is retried by the gateway's next callback.
 */
/** Keyed by execution id and the batch's first task id. */
const resumes = new Map<string, { building: boolean; since: number }>();
const checkChains = new Map<string, Promise<unknown>>();
const RESUME_MEMORY_MS = 5_000;

export function resumingHere(batchKey: string): boolean {
	const resume = resumes.get(batchKey);
	return resume !== undefined && (resume.building || Date.now() - resume.since < RESUME_MEMORY_MS);
}

export function markResuming(batchKey: string, building: boolean): void {
	for (const [id, resume] of resumes) {
		if (!resume.building && Date.now() - resume.since >= RESUME_MEMORY_MS) resumes.delete(id);
	}
	resumes.set(batchKey, { building, since: Date.now() });
}

/**
 * Task records this process has read from the gateway in a final state, per batch (keyed like the
 * resumes above), so that each final callback confirms its own task once and the callback that
 * completes the batch reads only the tasks no earlier check here saw final. Safe because a final task
 * stays final (a decision where the gateway interface is silent, see docs/gateway-interface.md,
 * "Decisions where the interface is silent"; Wait Until Done relies on the same when it holds finished
 * tasks until the last one is done), and only ever a saving: a process without a record (another
 * webhook processor, a restart) reads the task from the gateway, so the gateway stays the source of
 * truth and nothing is written that another process could miss or overwrite. Forgotten once the batch
 * resumes; at most MAX_REMEMBERED_BATCHES batches are kept (least recently used first out).
 */
const finalRecords = new Map<string, Map<string, VideoTask>>();
const MAX_REMEMBERED_BATCHES = 200;

/** The final records remembered for the batch, by item index (only ids that are the batch's own). */
export function rememberedFinal(batchKey: string, batch: CallbackBatch): Map<number, VideoTask> {
	const records = finalRecords.get(batchKey);
	const known = new Map<number, VideoTask>();
	if (!records) return known;
	batch.entries.forEach((entry, itemIndex) => {
		const task = 'taskId' in entry ? records.get(entry.taskId) : undefined;
		if (task) known.set(itemIndex, task);
	});
	return known;
}

/**
 * Reads one task of the batch from the gateway and remembers it when final. Simultaneous callbacks in
 * this process that need the same task (its own callback confirming it, another one checking the
 * batch) share one read instead of sending one each.
 */
const readsInFlight = new Map<string, Promise<VideoTask>>();
export async function readTask(
	ctx: IWebhookFunctions,
	batchKey: string,
	itemIndex: number,
	taskId: string,
): Promise<VideoTask> {
	const key = `${batchKey}/${taskId}`;
	let reading = readsInFlight.get(key);
	if (!reading) {
		reading = fetchVideoTask(ctx, itemIndex, taskId).then((task) => {
			if (isFinalState(normaliseStatus(task.status))) rememberFinal(batchKey, taskId, task);
			return task;
		});
		readsInFlight.set(key, reading);
		const settled = () => {
			if (readsInFlight.get(key) === reading) readsInFlight.delete(key);
		};
		reading.then(settled, settled);
	}
	return await reading;
}

function rememberFinal(batchKey: string, taskId: string, task: VideoTask): void {
	const records = finalRecords.get(batchKey) ?? new Map<string, VideoTask>();
	finalRecords.delete(batchKey);
	finalRecords.set(batchKey, records.set(taskId, task));
	for (const oldest of finalRecords.keys()) {
		if (finalRecords.size <= MAX_REMEMBERED_BATCHES) break;
		finalRecords.delete(oldest);
	}
}

/** Runs `check` after every earlier check of the same execution in this process has finished. */
export async function afterEarlierChecks<T>(batchKey: string, check: () => Promise<T>): Promise<T> {
	const previous = checkChains.get(batchKey) ?? Promise.resolve();
	const next = previous.catch(() => undefined).then(check);
	checkChains.set(batchKey, next);
	try {
		return await next;
	} finally {
		if (checkChains.get(batchKey) === next) checkChains.delete(batchKey);
	}
}

/** Forgets the batch's final records once it has resumed. */
export function forgetFinal(batchKey: string): void {
	finalRecords.delete(batchKey);
}
