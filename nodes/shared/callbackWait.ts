/**
 * Completion mode "Wait for Callback": the node creates the task with this execution's resume URL
 * as notifyHook, then parks the execution (n8n persists it; no worker is held). The gateway's
 * callbacks arrive at the node's restart webhook: progress keeps it waiting, the final status
 * resumes it with the same item the polling mode outputs.
 *
 * n8n facts this relies on (2.41, verified end to end in test/e2e):
 * - `$execution.resumeUrl` is `<WEBHOOK_URL>webhook-waiting/<executionId>?signature=<token>`;
 *   n8n rejects a wrong token with 401 before node code runs, and answers 409 once the execution
 *   has finished.
 * - `webhook()` returning `webhookResponse` without `workflowData` keeps the execution waiting;
 *   returning `workflowData` resumes it and becomes the node's output (execute() is not re-run).
 * - On resume after the wait limit, n8n re-runs the node disabled (its input passes through), so
 *   the timeout error is armed before waiting as the stack entry's `resumeError`, and cleared by
 *   `webhook()` on a successful resume. Throwing inside `webhook()` would wipe earlier nodes'
 *   data, so failures travel the same way.
 */
import type {
	IDataObject,
	IExecuteData,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { parseCallback } from './callbacks';
import { isFinalState, normaliseStatus } from './status';
import {
	assertTaskId,
	fetchVideoTask,
	finishedVideoItem,
	formatDuration,
	type ResultOptions,
	taskError,
	taskFailedError,
	type VideoTask,
	videoTaskJson,
} from './tasks';
import { numberParameter } from './validation';

/** Custom execution data key holding the id of the task this execution waits for. */
export const WAITING_TASK_KEY = 'mediaGatewayTaskId';
export const DEFAULT_WAIT_LIMIT_MINUTES = 60;

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
		typeOptions: { minValue: 0.01, numberPrecision: 2 },
		default: DEFAULT_WAIT_LIMIT_MINUTES,
		displayOptions: { show },
		description:
			'End the wait with an error naming the task if no final callback came by then. n8n checks waiting executions once a minute, so the end can come up to a minute later.',
	};
}

export const callbackModeNotice = (show: Record<string, string[]>): INodeProperties => ({
	displayName:
		'The execution pauses until the gateway calls back; no worker is busy meanwhile. The gateway must reach this n8n at its public URL (set WEBHOOK_URL). One item per execution: put a Loop Over Items node (batch size 1) before this node for several.',
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
			description: 'Wait for Callback needs n8n 1.x or later with webhooks enabled. Choose Wait Until Done instead.',
		});
	}
	return url.toString();
}

/**
 * Creates the task with the resume URL as notifyHook and parks the execution. Returns what the
 * editor shows while the execution waits; on resume `webhook()` provides the real output.
 */
export async function startCallbackWait(
	ctx: IExecuteFunctions,
	createTask: (itemIndex: number, notifyHook: string) => Promise<VideoTask>,
	options: ResultOptions,
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	if (items.length !== 1) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Wait for Callback handles one item per execution; this node received ${items.length}`,
			{
				description:
					'n8n resumes a waiting execution once, so each task needs its own execution. Put a Loop Over Items node with batch size 1 before this node, or choose Completion → Wait Until Done, which waits for many tasks at once.',
			},
		);
	}
	const limitMinutes =
		numberParameter(ctx, 'callbackWaitLimitMinutes', 0, 'Wait Limit (Minutes)') ?? DEFAULT_WAIT_LIMIT_MINUTES;
	if (limitMinutes <= 0) {
		throw new NodeOperationError(ctx.getNode(), 'Wait Limit (Minutes) must be greater than 0', {
			itemIndex: 0,
			description: `Got ${limitMinutes}. Pro videos and storyboards can take many minutes; an hour is a safe limit.`,
		});
	}
	const stored = ctx.customData.getAll();
	if (!(WAITING_TASK_KEY in stored) && Object.keys(stored).length >= 10) {
		throw new NodeOperationError(ctx.getNode(), 'Wait for Callback needs one slot of execution custom data', {
			itemIndex: 0,
			description:
				'This execution already uses the 10 custom data keys n8n allows. Remove one (Execution Data node), or choose Wait Until Done.',
		});
	}

	const created = await createTask(0, resumeUrl(ctx));
	const taskId = assertTaskId(ctx, created.id, 0, 'The task ID the gateway returned');
	const state = normaliseStatus(created.status);
	if (isFinalState(state)) {
		// Already done (a cached result): nothing to wait for.
		if (state === 'failed') throw taskFailedError(ctx, 0, taskId, created);
		const task = await fetchVideoTask(ctx, 0, taskId);
		return [[{ ...(await finishedVideoItem(ctx, 0, task, taskId, options)), pairedItem: { item: 0 } }]];
	}

	ctx.customData.set(WAITING_TASK_KEY, taskId);
	const limitMs = Math.round(limitMinutes * 60_000);
	// Armed now, cleared by webhook() on success: what n8n reports if the wait limit passes first.
	ctx.setMetadata({
		resumeError: taskError(ctx, `Task ${taskId} sent no final callback within ${formatDuration(limitMs)}`, {
			itemIndex: 0,
			description:
				`The task may still be running on the gateway. Fetch it with the Video node's "Get Task" or "Wait for Task" operation and Task ID ${taskId}. ` +
				'If callbacks never arrive, check that the gateway can reach this n8n at its public URL (WEBHOOK_URL).',
			task: { taskId, timedOut: true },
		}),
	});
	await ctx.putExecutionToWait(new Date(Date.now() + limitMs));
	return [[{ json: { ...videoTaskJson(created, taskId), waitingForCallback: true }, pairedItem: { item: 0 } }]];
}

/** The stack entry of the waiting node: where n8n keeps `resumeError` (not part of the public API). */
function waitingEntry(ctx: IWebhookFunctions): IExecuteData | undefined {
	return (ctx as unknown as { executeData?: IExecuteData }).executeData;
}

function setResumeError(ctx: IWebhookFunctions, error: NodeOperationError | NodeApiError | undefined): void {
	const entry = waitingEntry(ctx);
	if (!entry) return;
	const metadata = { ...(entry.metadata ?? {}) };
	if (error) metadata.resumeError = error;
	else delete metadata.resumeError;
	entry.metadata = metadata;
}

function answer(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	ctx.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

/**
 * Receives the gateway's callbacks for a waiting execution. Only a well-formed callback for the
 * awaited task counts; anything else is answered 4xx and the execution keeps waiting.
 */
export async function callbackWaitWebhook(
	ctx: IWebhookFunctions,
	options: ResultOptions,
): Promise<IWebhookResponseData> {
	let expected: string | undefined;
	try {
		expected = ctx.customData.get(WAITING_TASK_KEY);
	} catch {
		expected = undefined;
	}
	if (!expected || !waitingEntry(ctx)) {
		return answer(ctx, 409, { error: 'This execution is not waiting for a gateway task' });
	}
	const parsed = parseCallback(ctx.getBodyData());
	if (!parsed.ok) return answer(ctx, 400, { error: parsed.reason });
	const callback = parsed.item;
	if (callback.taskId !== expected) {
		return answer(ctx, 409, { error: `This execution waits for task ${expected}, not ${callback.taskId}` });
	}
	if (!isFinalState(callback.state)) {
		return { webhookResponse: { received: true, waiting: true, state: callback.state } };
	}

	// The gateway wants its 200 within 5 seconds; reading the task and downloading may take longer.
	ctx.getResponseObject().status(200).json({ received: true, resumed: true });
	try {
		if (callback.state === 'failed') {
			setResumeError(ctx, taskFailedError(ctx, 0, expected, callback.payload as IDataObject, callback.failReason));
			return { noWebhookResponse: true, workflowData: [[{ json: {} }]] };
		}
		const task = await fetchVideoTask(ctx, 0, expected);
		if (normaliseStatus(task.status) === 'failed') {
			setResumeError(ctx, taskFailedError(ctx, 0, expected, task));
			return { noWebhookResponse: true, workflowData: [[{ json: {} }]] };
		}
		// The callback said done; a gateway whose query lags behind still gets the callback's data.
		const finished: VideoTask =
			normaliseStatus(task.status) === 'succeeded'
				? task
				: {
						...task,
						status: callback.status,
						video: { url: callback.resultUrl, duration: callback.duration, coverUrl: callback.coverUrl },
					};
		const item = await finishedVideoItem(ctx, 0, finished, expected, options);
		setResumeError(ctx, undefined);
		return { noWebhookResponse: true, workflowData: [[item]] };
	} catch (error) {
		setResumeError(
			ctx,
			error instanceof NodeOperationError || error instanceof NodeApiError
				? error
				: new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: 0 }),
		);
		return { noWebhookResponse: true, workflowData: [[{ json: {} }]] };
	}
}
