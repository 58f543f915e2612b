/**
 * The restart webhook of a waiting execution: the gateway's callbacks for the batch's tasks arrive
 * here, are checked with the gateway, and the execution resumes once, when every task is final.
 */
import type {
	IDataObject,
	IExecuteData,
	INodeExecutionData,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { asNodeError } from '../../execution/errors';
import { parseCallback } from '../../gateway/callbacks';
import { isFinalState, normaliseStatus } from '../../gateway/status';
import { readBatch, setResumeError } from './batch';
import { type BatchCheck, checkBatch } from './check';
import {
	afterEarlierChecks,
	forgetFinal,
	markResuming,
	readTask,
	rememberedFinal,
	resumingHere,
} from './memory';
import { batchOutput } from './output';

/** The gateway wants its 200 within 5 s, and n8n itself needs part of that under load: a check of the batch longer than this answers first. */
export const ANSWER_BUDGET_MS = 1000;
const ANSWER_POLL_MS = 20;

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

/** The stack entry of the waiting node, as the webhook context holds it (not part of the public API). */
function waitingEntry(ctx: IWebhookFunctions): IExecuteData | undefined {
	return (ctx as unknown as { executeData?: IExecuteData }).executeData;
}

function answer(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	ctx.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
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
			return answer(ctx, 502, {
				error: 'The gateway could not be asked about this task; send the callback again later',
			});
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
	for (const until = Date.now() + ANSWER_BUDGET_MS; early === undefined && Date.now() < until;) {
		await sleep(ANSWER_POLL_MS);
	}
	if (early && 'error' in early) {
		return answer(ctx, 502, {
			error: 'The gateway could not be asked about the other tasks; send the callback again later',
		});
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
		setResumeError(entry, asNodeError(ctx.getNode(), caught, itemIndex));
		return resume([{ json: {} }]);
	} finally {
		markResuming(batchKey, false);
		forgetFinal(batchKey);
	}
}
