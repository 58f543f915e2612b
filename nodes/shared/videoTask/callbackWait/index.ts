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
 *
 * Files: properties.ts (the panel's notice and Wait Limit), start.ts (validate, create, park) with
 * timeout.ts (the outcome armed for the wait limit), batch.ts (the batch record in stack metadata),
 * webhook.ts (the resume webhook) with check.ts (asking the gateway), memory.ts (what one process
 * remembers) and output.ts (the items, or the error, the execution resumes with).
 */
export { BATCH_METADATA_KEY, type BatchEntry, type CallbackBatch, readBatch } from './batch';
export { READ_PARALLELISM } from './check';
export { batchOutput } from './output';
export {
	callbackModeNotice,
	DEFAULT_WAIT_LIMIT_MINUTES,
	MAX_BATCH_ITEMS,
	MAX_WAIT_LIMIT_MINUTES,
	waitLimitProperty,
} from './properties';
export { assertCallbackWaitSupported, startCallbackWait } from './start';
export {
	ANSWER_BUDGET_MS,
	callbackWaitWebhook,
	callbackWaitWebhookMethods,
	callbackWaitWebhooks,
} from './webhook';
