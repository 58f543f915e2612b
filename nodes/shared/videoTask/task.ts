/**
 * One video task (docs/gateway-interface.md, "Videos" and "Task status"): read it with
 * `GET /v1/videos/{id}`, poll it until its normalised state is final (sleeping between polls with
 * the item's concurrency slot handed to other items), and turn the finished task into an item.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { GatewayTaskError, type GatewayTaskFields } from '../execution/errors';
import { CONCURRENCY_HINT } from '../execution/itemRunner';
import { readDownloadLimits } from '../parameters/options';
import { gatewayMessage } from '../transport/errors';
import type { TransportOptions } from '../transport/request';

import { downloadToBinary } from '../transport/download';
import type { ItemRun } from '../execution/itemRunner';
import { cancellableSleep } from '../execution/cancellation';
import { isFinalState, normaliseStatus, type TaskState } from '../gateway/status';
import { type GatewayContext, gatewayRequest } from '../transport/request';

export interface VideoTask extends IDataObject {
	id?: string;
	status?: string;
	video?: IDataObject;
}

export interface PollSettings {
	pollIntervalMs: number;
	timeoutMs: number;
}

/** An n8n error that carries the task, so "Continue On Fail" can output it beside the message. */
export function taskError(
	ctx: GatewayContext,
	message: string,
	options: { itemIndex: number; description: string; task: GatewayTaskFields },
): GatewayTaskError {
	return new GatewayTaskError(ctx.getNode(), message, options);
}

export function taskPath(taskId: string): string {
	return `/v1/videos/${encodeURIComponent(taskId)}`;
}

/** The reason a failed task gives, wherever this gateway family puts it. */
export function failureReason(task: IDataObject): string | undefined {
	return (
		gatewayMessage(task) ??
		(typeof task.fail_reason === 'string' && task.fail_reason ? task.fail_reason : undefined)
	);
}

/** What a 404 of a task request means: this task id, unless every request fails alike. */
const TASK_NOT_FOUND_HINT =
	'Check the Task ID: the gateway does not know this task. If every request fails like this, check the Base URL in the Media Gateway API credential.';

export async function fetchVideoTask(
	ctx: GatewayContext,
	itemIndex: number,
	taskId: string,
	transport: TransportOptions = {},
): Promise<VideoTask> {
	return await gatewayRequest<VideoTask>(ctx, {
		method: 'GET',
		path: taskPath(taskId),
		itemIndex,
		retry: transport.retry,
		hints: { rateLimited: CONCURRENCY_HINT, ...transport.hints, notFound: TASK_NOT_FOUND_HINT },
	});
}

/** Longer ids are not ids but pasted text (a whole JSON item, a URL with a token). */
const MAX_TASK_ID_LENGTH = 256;

/**
 * A task id that is safe to put into `/v1/videos/{id}`: not empty, not a dot segment (`.` or `..`
 * would turn the request into one for another endpoint once the URL is normalised), no control
 * characters, at most 256 characters. Checked before any request is sent.
 */
export function assertTaskId(
	ctx: IExecuteFunctions,
	value: unknown,
	itemIndex: number,
	label = 'Task ID',
): string {
	const taskId = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
	const refuse = (problem: string, description: string) =>
		new NodeOperationError(ctx.getNode(), `${label} ${problem}`, { itemIndex, description });
	if (!taskId) {
		throw refuse(
			'is empty',
			'Enter the id the create operation returned, e.g. {{ $json.taskId }}.',
		);
	}
	if (/^\.+$/.test(taskId)) {
		throw refuse(
			`"${taskId}" is not a task id`,
			'A path segment of dots would make the request reach another endpoint of the gateway, so nothing was sent. Enter the id the create operation returned, e.g. {{ $json.taskId }}.',
		);
	}
	// C0 and C1 control characters cannot come from a real id.
	if (
		[...taskId].some(
			(char) =>
				char.charCodeAt(0) < 0x20 || (char.charCodeAt(0) >= 0x7f && char.charCodeAt(0) < 0xa0),
		)
	) {
		throw refuse(
			'contains control characters',
			'Nothing was sent. Enter the id the create operation returned, e.g. {{ $json.taskId }}.',
		);
	}
	if (taskId.length > MAX_TASK_ID_LENGTH) {
		throw refuse(
			`is ${taskId.length} characters long`,
			`Task ids are short (at most ${MAX_TASK_ID_LENGTH} characters); this looks like other text. Nothing was sent. Map only the id, e.g. {{ $json.taskId }}.`,
		);
	}
	return taskId;
}

/**
 * Polls until the task succeeds (returns it), fails (throws with the gateway's reason) or the
 * timeout passes (throws naming the task id and how to pick it up later).
 */
export async function waitForVideoTask(
	ctx: IExecuteFunctions,
	itemIndex: number,
	taskId: string,
	settings: PollSettings,
	run: ItemRun,
): Promise<VideoTask> {
	const deadline = Date.now() + settings.timeoutMs;
	for (;;) {
		const task = await fetchVideoTask(ctx, itemIndex, taskId, run.transport).catch(
			(error: unknown) => {
				// The task itself is unaffected by a failed status request: say how to pick it up.
				if (error instanceof NodeApiError) {
					error.description =
						`${error.description ?? ''} The task keeps running on the gateway: fetch it later with the Video node's "Get Task" or "Wait for Task" operation and Task ID ${taskId}.`.trim();
				}
				throw error;
			},
		);
		const state = normaliseStatus(task.status);
		if (state === 'succeeded') return task;
		if (state === 'failed') throw taskFailedError(ctx, itemIndex, taskId, task);
		const left = deadline - Date.now();
		if (left <= 0) {
			throw taskError(
				ctx,
				`Task ${taskId} did not finish within ${formatDuration(settings.timeoutMs)}`,
				{
					itemIndex,
					description:
						`Its last status was "${String(task.status)}". The task keeps running on the gateway: fetch it later with ` +
						`the Video node's "Get Task" or "Wait for Task" operation and Task ID ${taskId}, or raise the Wait Timeout.`,
					task: { taskId, status: task.status ?? null, state, timedOut: true },
				},
			);
		}
		await run.idle(
			async () =>
				await cancellableSleep(ctx, Math.min(settings.pollIntervalMs, left), run.signal, itemIndex),
		);
	}
}

export function taskFailedError(
	ctx: GatewayContext,
	itemIndex: number,
	taskId: string,
	task: IDataObject,
	reasonGiven?: string | null,
): NodeOperationError {
	const reason = reasonGiven || failureReason(task);
	return taskError(
		ctx,
		`The gateway reports task ${taskId} as failed${reason ? `: ${reason}` : ''}`,
		{
			itemIndex,
			description: reason
				? 'Change the prompt or inputs the reason points at, then run the node again.'
				: 'The gateway gave no reason. Try again, or check the task on the gateway.',
			task: { taskId, status: task.status ?? null, state: 'failed', failReason: reason ?? null },
		},
	);
}

export function formatDuration(ms: number): string {
	if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
	if (ms % 60_000 === 0) return `${ms / 60_000} min`;
	return `${Math.round(ms / 100) / 10} s`;
}

/** The output item of a video task: raw fields kept, normalised ones added. */
export function videoTaskJson(task: VideoTask, taskId?: string): IDataObject {
	const state: TaskState = normaliseStatus(task.status);
	const json: IDataObject = { ...task, taskId: task.id ?? taskId, state, status: task.status };
	if (state === 'failed') json.failReason = failureReason(task) ?? null;
	if (isFinalState(state) || task.video) json.video = task.video ?? null;
	return json;
}

/** The "Options" of an operation as far as a finished task is concerned. */
export interface ResultOptions {
	download?: boolean;
	binaryPropertyName?: string;
}

export function resultOptions(ctx: IExecuteFunctions, itemIndex: number): ResultOptions {
	return ctx.getNodeParameter('options', itemIndex, {}) as ResultOptions;
}

/** Output item of a finished task, with the video downloaded when the user asked for it. */
export async function finishedVideoItem(
	ctx: IExecuteFunctions | IWebhookFunctions,
	itemIndex: number,
	task: VideoTask,
	taskId: string,
	options: ResultOptions,
	transport: TransportOptions = {},
): Promise<INodeExecutionData> {
	const item: INodeExecutionData = { json: videoTaskJson(task, taskId) };
	if (options.download === true) {
		const field = String(options.binaryPropertyName ?? 'data').trim() || 'data';
		const url = typeof task.video?.url === 'string' ? task.video.url : '';
		item.binary = {
			[field]: await downloadToBinary(ctx, url, {
				itemIndex,
				fileNameBase: `video-${taskId}`,
				defaultMimeType: 'video/mp4',
				expectedPrefix: 'video/',
				limits: readDownloadLimits(ctx, itemIndex, 'video'),
				retry: transport.retry,
			}),
		};
	}
	return item;
}
