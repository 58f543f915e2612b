import type { INodeExecutionData, IWebhookResponseData } from 'n8n-workflow';

/**
 * The result of webhook() for an accepted callback: n8n starts the execution from `workflowData`,
 * then answers the caller with `webhookResponse`, and `onStarted` runs at the moment n8n reads that
 * answer, once and only if it does.
 *
 * Why this shape. The trigger promises at-least-once delivery: a callback is answered 200 only once
 * its execution exists, so a failed start reaches the gateway as an error and the gateway retries.
 * n8n 2.x does exactly that for `responseMode: 'onReceived'` (webhook-helpers.js executeWebhook): it
 * awaits WorkflowRunner.run(), which creates the execution record (regular mode) or puts the job on
 * the queue (queue mode), and only then reads `webhookResponse` to build the 200; when run() throws it
 * answers 500 and never reads it. So reading the answer is the one signal node code gets that the
 * execution has started. The duplicate memory is written then, not before, so that the retry of a
 * callback whose start failed is not mistaken for a duplicate. Writing it then is also what gets it
 * saved: run() resets static data's "changed" flag (WorkflowRunner.establishContextForPersistence
 * wraps the same object again), and n8n saves static data right after reading the answer, before
 * sending it.
 *
 * n8n 1.x reads `webhookResponse` and answers before it starts the execution; there the duplicate
 * memory is written at that moment, the behaviour of earlier versions of this node (at most once).
 */
export function answerOnceStarted(
	workflowData: INodeExecutionData[][],
	answer: object,
	onStarted: () => void,
): IWebhookResponseData {
	let started = false;
	return {
		workflowData,
		get webhookResponse() {
			if (!started) {
				started = true;
				onStarted();
			}
			return answer;
		},
	};
}
