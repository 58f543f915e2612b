/**
 * Completion mode "Wait for Callback" for a whole batch: the node validates every item's request,
 * creates one task per item (bounded by Concurrency) with this execution's resume URL as
 * notifyHook, then parks the execution once (n8n persists it; no worker is held). The gateway's
 * callbacks for any task of the batch arrive at the node's restart webhook; the execution resumes
 * exactly once, when every task is final, with one item per input item.
 *
 * Design (see README, "Wait for Callback details"):
 * - The batch (task id per input item, the result options, Continue On Fail, Concurrency) lives in
 *   the waiting node's stack-entry metadata, set with the public `setMetadata` before parking and
 *   persisted by n8n with the waiting execution. It is written once and only read afterwards, so
 *   webhook processors never write shared state and no update can be lost.
 * - Which tasks are done is not stored anywhere shared: on a final callback the webhook asks the
 *   gateway (`GET /v1/videos/{id}`, free) for that task, and then for the others, and resumes when all
 *   are final. The gateway's own records decide success, failure and the result URL; a callback the
 *   gateway does not confirm is answered 409 so the gateway's retry schedule (docs/gateway-interface.md,
 *   "Callbacks") re-checks later. Each process remembers the records it has read final, so each final
 *   callback confirms its own task once and the one that completes the batch reads only the tasks no
 *   earlier check in that process saw final (see `finalRecords`); a process that lacks a record asks
 *   the gateway, so the outcome is the same whichever processes the callbacks land on.
 * - Exactly one resume: two webhook processors can both find the batch complete; n8n (2.41) claims
 *   a waiting execution with a conditional update (status must still be `waiting`), so only one
 *   resume runs, and later callbacks get n8n's own 409 before node code runs.
 *
 * n8n facts this relies on (2.41, verified end to end in test/e2e and test/queue):
 * - `$execution.resumeUrl` is `<WEBHOOK_URL>webhook-waiting/<executionId>?signature=<token>`; n8n
 *   rejects a wrong token with 401 before node code runs.
 * - `webhook()` returning without `workflowData` keeps the execution waiting; returning
 *   `workflowData` resumes it, and the items become the node's output (execute() is not re-run).
 * - When the wait limit passes, n8n runs no node code: it throws the stack entry's `resumeError`
 *   when one is set, otherwise it re-runs the node disabled, which passes the stack entry's input
 *   items through. The timeout outcome is therefore prepared before parking: a `resumeError`, or,
 *   under Continue On Fail, one timed-out item per input item as the stack entry's input.
 */
import type {
	IDataObject,
	IExecuteData,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	ITaskMetadata,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { parseCallback } from '../gateway/callbacks';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../execution/itemRunner';
import { isFinalState, normaliseStatus } from '../gateway/status';
import {
	assertTaskId,
	fetchVideoTask,
	finishedVideoItem,
	formatDuration,
	type ResultOptions,
	resultOptions,
	taskError,
	taskFailedError,
	type VideoTask,
	videoTaskJson,
} from './task';
import type { GatewayContext } from '../transport/request';
import { numberParameter } from '../parameters/read';

export const DEFAULT_WAIT_LIMIT_MINUTES = 60;
/** A render that has not finished in a day will not; a longer wait only keeps a dead execution. */
export const MAX_WAIT_LIMIT_MINUTES = 1440;
/** One parked execution holds at most this many tasks (at most one GET each when the batch is checked). */
export const MAX_BATCH_ITEMS = 100;
/** Stack-entry metadata key of the batch. */
export const BATCH_METADATA_KEY = 'mediaGatewayBatch';
/** The gateway wants its 200 within 5 s, and n8n itself needs part of that under load: a check of the batch longer than this answers first. */
export const ANSWER_BUDGET_MS = 1000;
const ANSWER_POLL_MS = 20;

/** What one input item became when the batch parked: its task, or (Continue On Fail) its error item. */
export type BatchEntry = { taskId: string; options: ResultOptions } | { error: IDataObject };

/** Everything the webhook needs, written once before parking. */
export interface CallbackBatch {
	version: 1;
	entries: BatchEntry[];
	continueOnFail: boolean;
	concurrency: number;
	limitMs: number;
}

export const callbackWaitWebhooks: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: 'onReceived',
		responseData: '',
		path: '',
		restartWebhook: true,
	},
];

/**
 * A restart webhook is owned by n8n (it lives as long as the waiting execution) and the gateway
 * has no registration API, so there is nothing to check, create or delete. n8n does not call
 * these for restart webhooks; the community-node rules require them on every node with webhooks.
 */
export const callbackWaitWebhookMethods = {
	default: {
		async checkExists(): Promise<boolean> {
			return true;
		},
		async create(): Promise<boolean> {
			return true;
		},
		async delete(): Promise<boolean> {
			return true;
		},
	},
};

export function waitLimitProperty(show: Record<string, string[]>): INodeProperties {
	return {
		displayName: 'Wait Limit (Minutes)',
		name: 'callbackWaitLimitMinutes',
		type: 'number',
		typeOptions: { minValue: 0.01, maxValue: MAX_WAIT_LIMIT_MINUTES, numberPrecision: 2 },
		default: DEFAULT_WAIT_LIMIT_MINUTES,
		displayOptions: { show },
		description: `End the wait with an error naming the unfinished tasks if the batch is not done by then (at most ${MAX_WAIT_LIMIT_MINUTES} minutes, one day). n8n checks waiting executions once a minute, so the end can come up to a minute later.`,
	};
}

export const callbackModeNotice = (show: Record<string, string[]>): INodeProperties => ({
	displayName: `The execution pauses until the gateway reports every task of the batch (up to ${MAX_BATCH_ITEMS} items) finished; no worker is busy meanwhile. The gateway must reach this n8n at its public URL (set WEBHOOK_URL).`,
	name: 'callbackModeNotice',
	type: 'notice',
	default: '',
	displayOptions: { show },
});

/** The resume URL of this execution, parsed with the URL API so its signature survives intact. */
function resumeUrl(ctx: IExecuteFunctions): string {
	const raw = ctx.evaluateExpression('{{ $execution.resumeUrl }}', 0);
	let url: URL;
	try {
		url = new URL(String(raw));
	} catch {
		throw new NodeOperationError(ctx.getNode(), 'n8n did not provide a resume URL for this execution', {
			description: 'Wait for Callback needs webhooks enabled on this n8n. Choose Wait Until Done instead.',
		});
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

function readWaitLimitMs(ctx: IExecuteFunctions): number {
	const minutes =
		numberParameter(ctx, 'callbackWaitLimitMinutes', 0, 'Wait Limit (Minutes)') ?? DEFAULT_WAIT_LIMIT_MINUTES;
	if (!(minutes > 0) || minutes > MAX_WAIT_LIMIT_MINUTES) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Wait Limit (Minutes) must be greater than 0 and at most ${MAX_WAIT_LIMIT_MINUTES}`,
			{
				itemIndex: 0,
				description: `Got ${minutes}. Pro videos and storyboards can take many minutes; an hour is a safe limit. For renders longer than a day, choose Return Task at Once with a Media Gateway Trigger.`,
			},
		);
	}
	return Math.round(minutes * 60_000);
}

function readBatchConcurrency(ctx: IExecuteFunctions): number {
	const raw = ctx.getNodeParameter('options.concurrency', 0, DEFAULT_CONCURRENCY) as unknown;
	const value = Number(raw);
	if (!Number.isInteger(value) || value < 1 || value > MAX_CONCURRENCY) {
		throw new NodeOperationError(ctx.getNode(), `Concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}`, {
			description: `Got "${String(raw)}". Set Options → Concurrency to, for example, ${DEFAULT_CONCURRENCY}.`,
		});
	}
	return value;
}

/** Runs `work` over `indexes` with at most `limit` at a time; `stop()` ends the run early. */
async function forEachLimited(
	indexes: number[],
	limit: number,
	work: (index: number, stop: () => void) => Promise<void>,
): Promise<void> {
	let cursor = 0;
	let stopped = false;
	const stop = () => {
		stopped = true;
	};
	const worker = async () => {
		while (!stopped && cursor < indexes.length) {
			const index = indexes[cursor++];
			await work(index, stop);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, indexes.length) }, worker));
}

function asNodeError(ctx: GatewayContext, caught: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (caught instanceof NodeApiError || caught instanceof NodeOperationError) {
		if (caught.context.itemIndex === undefined) caught.context.itemIndex = itemIndex;
		return caught;
	}
	return new NodeOperationError(ctx.getNode(), caught as Error, { itemIndex });
}

/** The item "Continue On Fail" outputs for an error: the same fields the item router writes. */
function errorJson(error: NodeApiError | NodeOperationError): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	const task = (error as { gatewayTask?: IDataObject }).gatewayTask;
	if (task) Object.assign(json, task);
	return json;
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
	const concurrency = readBatchConcurrency(ctx);
	const continueOnFail = ctx.continueOnFail();
	const notifyHook = resumeUrl(ctx);

	// 1. Every item's request is read and validated before anything is created (and billed).
	const entries: Array<BatchEntry | undefined> = new Array(items.length);
	const senders: Array<(() => Promise<VideoTask>) | undefined> = new Array(items.length);
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			senders[itemIndex] = await buildRequest(itemIndex, notifyHook);
		} catch (caught) {
			const error = asNodeError(ctx, caught, itemIndex);
			if (!continueOnFail) throw error;
			entries[itemIndex] = { error: errorJson(error) };
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
			const error = asNodeError(ctx, caught, itemIndex);
			if (continueOnFail) {
				entries[itemIndex] = { error: errorJson(error) };
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
		'taskId' in entry && !isFinalState(normaliseStatus(createdTasks[itemIndex].status)) ? [itemIndex] : [],
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

	ctx.setMetadata({ [BATCH_METADATA_KEY]: batch } as ITaskMetadata);
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

function taskIndexes(batch: CallbackBatch): number[] {
	return batch.entries.flatMap((entry, itemIndex) => ('taskId' in entry ? [itemIndex] : []));
}

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
function armTimeout(
	ctx: IExecuteFunctions,
	batch: CallbackBatch,
	pending: number[],
	createdTasks: VideoTask[],
): void {
	const limit = formatDuration(batch.limitMs);
	const taskIds = pending.map((itemIndex) => (batch.entries[itemIndex] as { taskId: string }).taskId);
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
					? errorJson(taskFailedError(ctx, itemIndex, entry.taskId, task))
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

function resumingHere(batchKey: string): boolean {
	const resume = resumes.get(batchKey);
	return resume !== undefined && (resume.building || Date.now() - resume.since < RESUME_MEMORY_MS);
}

function markResuming(batchKey: string, building: boolean): void {
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
/** The task reads of one check run this many at a time (free reads; Concurrency paces the paid creations and the downloads). */
export const READ_PARALLELISM = 20;

/** The final records remembered for the batch, by item index (only ids that are the batch's own). */
function rememberedFinal(batchKey: string, batch: CallbackBatch): Map<number, VideoTask> {
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
async function readTask(ctx: IWebhookFunctions, batchKey: string, itemIndex: number, taskId: string): Promise<VideoTask> {
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
async function afterEarlierChecks<T>(batchKey: string, check: () => Promise<T>): Promise<T> {
	const previous = checkChains.get(batchKey) ?? Promise.resolve();
	const next = previous.catch(() => undefined).then(check);
	checkChains.set(batchKey, next);
	try {
		return await next;
	} finally {
		if (checkChains.get(batchKey) === next) checkChains.delete(batchKey);
	}
}

/** The stack entry of the waiting node, as the webhook context holds it (not part of the public API). */
function waitingEntry(ctx: IWebhookFunctions): IExecuteData | undefined {
	return (ctx as unknown as { executeData?: IExecuteData }).executeData;
}

/** Reads the batch back, refusing anything that is not exactly what startCallbackWait wrote. */
export function readBatch(metadata: unknown): CallbackBatch | undefined {
	const raw = (metadata as Record<string, unknown> | undefined)?.[BATCH_METADATA_KEY] as
		| Partial<CallbackBatch>
		| undefined;
	if (!raw || raw.version !== 1 || !Array.isArray(raw.entries) || raw.entries.length === 0) return undefined;
	const entriesOk = raw.entries.every(
		(entry) =>
			entry !== null &&
			typeof entry === 'object' &&
			((typeof (entry as { taskId?: unknown }).taskId === 'string' &&
				typeof (entry as { options?: unknown }).options === 'object') ||
				typeof (entry as { error?: unknown }).error === 'object'),
	);
	if (!entriesOk || typeof raw.concurrency !== 'number' || typeof raw.limitMs !== 'number') return undefined;
	return raw as CallbackBatch;
}

function setResumeError(entry: IExecuteData, error: NodeOperationError | NodeApiError | undefined): void {
	const metadata = { ...(entry.metadata ?? {}) };
	if (error) metadata.resumeError = error;
	else delete metadata.resumeError;
	entry.metadata = metadata;
}

function answer(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	ctx.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

type BatchCheck = { done: false } | { done: true; tasks: Map<number, VideoTask> };

/**
 * Asks the gateway for every other task of the batch that this process has not yet seen final, and
 * tells whether all are final now. One of them is read first: while the batch renders, that one is
 * usually still running, and then this callback is done after a single read. Only when it is final are
 * the rest read, all at once (up to READ_PARALLELISM), so the callback that completes the batch waits for
 * one round of reads, not one per Concurrency-sized slice.
 */
async function checkBatch(
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

/**
 * The node's output for a batch whose tasks are all final: one item per input item, in input order,
 * each paired with its input item. Without Continue On Fail, failed tasks (and failed downloads)
 * become one error that names each of them instead.
 */
export async function batchOutput(
	ctx: GatewayContext,
	batch: CallbackBatch,
	tasks: Map<number, VideoTask>,
): Promise<{ items: INodeExecutionData[]; failure?: NodeOperationError | NodeApiError }> {
	const outputs: IDataObject[] = new Array(batch.entries.length);
	const binaries: Array<INodeExecutionData['binary']> = new Array(batch.entries.length);
	const failures: Array<{ itemIndex: number; error: NodeOperationError | NodeApiError }> = [];
	const succeeded: number[] = [];
	batch.entries.forEach((entry, itemIndex) => {
		if (!('taskId' in entry)) {
			outputs[itemIndex] = entry.error;
			return;
		}
		const task = tasks.get(itemIndex) ?? {};
		if (normaliseStatus(task.status) === 'failed') {
			failures.push({ itemIndex, error: taskFailedError(ctx, itemIndex, entry.taskId, task) });
		} else {
			succeeded.push(itemIndex);
		}
	});
	if (failures.length === 0 || batch.continueOnFail) {
		await forEachLimited(succeeded, batch.concurrency, async (itemIndex) => {
			const entry = batch.entries[itemIndex] as { taskId: string; options: ResultOptions };
			try {
				const item = await finishedVideoItem(ctx, itemIndex, tasks.get(itemIndex)!, entry.taskId, entry.options);
				outputs[itemIndex] = item.json;
				binaries[itemIndex] = item.binary;
			} catch (caught) {
				failures.push({ itemIndex, error: asNodeError(ctx, caught, itemIndex) });
			}
		});
	}
	if (batch.continueOnFail) {
		for (const { itemIndex, error } of failures) outputs[itemIndex] = errorJson(error);
	} else if (failures.length > 0) {
		failures.sort((a, b) => a.itemIndex - b.itemIndex);
		return { items: [], failure: combinedFailure(ctx, batch, failures) };
	}
	return {
		items: outputs.map((json, itemIndex) => ({
			json,
			...(binaries[itemIndex] ? { binary: binaries[itemIndex] } : {}),
			pairedItem: { item: itemIndex },
		})),
	};
}

function combinedFailure(
	ctx: GatewayContext,
	batch: CallbackBatch,
	failures: Array<{ itemIndex: number; error: NodeOperationError | NodeApiError }>,
): NodeOperationError | NodeApiError {
	if (failures.length === 1 && batch.entries.length === 1) return failures[0].error;
	const lines = failures.map(({ itemIndex, error }) => `item ${itemIndex}: ${error.message}`);
	const failedIds = failures.flatMap(({ itemIndex }) => {
		const entry = batch.entries[itemIndex];
		return 'taskId' in entry ? [entry.taskId] : [];
	});
	return taskError(ctx, `${failures.length} of ${batch.entries.length} video tasks failed: ${lines.join('; ')}`, {
		itemIndex: failures[0].itemIndex,
		description:
			'Change the prompts or inputs the reasons point at and run those items again. To keep the finished videos of a batch when some fail, set the node\'s Settings → On Error to "Continue".',
		task: { taskIds: failedIds, state: 'failed' },
	});
}

/**
 * Receives the gateway's callbacks for a waiting execution. Only a well-formed callback for a task
 * of the batch, confirmed by the gateway, counts; anything else is answered 4xx and the execution
 * keeps waiting. No answer names a task the sender did not name itself.
 */
export async function callbackWaitWebhook(ctx: IWebhookFunctions): Promise<IWebhookResponseData> {
	const entry = waitingEntry(ctx);
	const batch = readBatch(entry?.metadata);
	if (!entry || !batch) {
		return answer(ctx, 409, { error: 'This execution is not waiting for gateway callbacks' });
	}
	const parsed = parseCallback(ctx.getBodyData());
	if (!parsed.ok) return answer(ctx, 400, { error: parsed.reason });
	const callback = parsed.item;
	const itemIndex = batch.entries.findIndex((e) => 'taskId' in e && e.taskId === callback.taskId);
	if (itemIndex < 0) {
		return answer(ctx, 409, { error: `Task ${callback.taskId} is not part of this execution` });
	}
	if (!isFinalState(callback.state)) {
		return answer(ctx, 200, { received: true, waiting: true, state: callback.state });
	}

	// This process is already resuming this batch (a storm of retries): nothing more to do. Keyed by
	// the batch too: a loop can park the same execution again, with new tasks, within a minute.
	const batchKey = `${ctx.getExecutionId()}/${(batch.entries.find((e) => 'taskId' in e) as { taskId: string }).taskId}`;
	if (resumingHere(batchKey)) return answer(ctx, 200, { received: true });

	// The gateway's record decides, not the callback: read now, or read final earlier in this process.
	let own = rememberedFinal(batchKey, batch).get(itemIndex);
	if (!own) {
		try {
			own = await readTask(ctx, batchKey, itemIndex, callback.taskId);
		} catch {
			return answer(ctx, 502, { error: 'The gateway could not be asked about this task; send the callback again later' });
		}
		if (!isFinalState(normaliseStatus(own.status))) {
			return answer(ctx, 409, {
				error: `The gateway does not report task ${callback.taskId} as finished; send the callback again when it is`,
			});
		}
	}
	const ownTask = own;

	// Check the rest of the batch, answering within the gateway's 5 s whatever it takes.
	let early: { result: BatchCheck | 'resuming' } | { error: unknown } | undefined;
	const checking = afterEarlierChecks(batchKey, async () => {
		if (resumingHere(batchKey)) return 'resuming' as const;
		const result = await checkBatch(ctx, batch, batchKey, { itemIndex, task: ownTask });
		if (result.done) markResuming(batchKey, true);
		return result;
	}).then(
		(result) => (early = { result }),
		(error: unknown) => (early = { error }),
	);
	// Short slices, so no timer outlives the check by much.
	for (const until = Date.now() + ANSWER_BUDGET_MS; early === undefined && Date.now() < until; ) {
		await sleep(ANSWER_POLL_MS);
	}
	if (early && 'error' in early) {
		return answer(ctx, 502, { error: 'The gateway could not be asked about the other tasks; send the callback again later' });
	}
	// Checked in time: the callback that completes the batch is answered by n8n once it has accepted the
	// resume, so a resume n8n refuses is answered with an error and retried by the gateway. Not in time:
	// answered now, the check goes on.
	const checkedInTime = early !== undefined;
	if (!checkedInTime) ctx.getResponseObject().status(200).json({ received: true });
	const settled = early ?? (await checking);
	if ('error' in settled || settled.result === 'resuming' || !settled.result.done) {
		return checkedInTime ? answer(ctx, 200, { received: true }) : { noWebhookResponse: true };
	}
	const resume = (items: INodeExecutionData[]): IWebhookResponseData =>
		checkedInTime
			? { webhookResponse: { received: true }, workflowData: [items] }
			: { noWebhookResponse: true, workflowData: [items] };

	try {
		const outcome = await batchOutput(ctx, batch, settled.result.tasks);
		setResumeError(entry, outcome.failure);
		return resume(outcome.failure ? [{ json: {} }] : outcome.items);
	} catch (caught) {
		setResumeError(entry, asNodeError(ctx, caught, itemIndex));
		return resume([{ json: {} }]);
	} finally {
		markResuming(batchKey, false);
		finalRecords.delete(batchKey);
	}
}
