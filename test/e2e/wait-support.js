'use strict';
/**
 * Helpers of the "Wait for Callback" end-to-end tests (one item and batches): start a workflow through its
 * Webhook node and follow its execution in n8n's own records. Works with an N8nHost (regular mode) and with
 * a queue cluster's main host; nothing here starts a process.
 */
const { postJson } = require('../../dev/gateway-callbacks');

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * @param {object} records the host whose database holds the executions (`executions`, `waitForExecutions`)
 * @param {(path: string) => string} webhookUrl the production URL of a webhook path
 */
function waitTools(records, webhookUrl) {
	async function executionById(workflowId, id) {
		return (await records.executions({ workflowId })).find((e) => e.id === id);
	}

	/** Starts the workflow through its Webhook node; returns the new execution's id. */
	async function startRun(workflow, body) {
		const before = new Set(
			(await records.executions({ workflowId: workflow.id })).map((e) => e.id),
		);
		const webhookPath = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook').parameters
			.path;
		const startedAt = Date.now();
		const started = await postJson(webhookUrl(webhookPath), body);
		if (started.status !== 200 || started.json?.message !== 'Workflow was started') {
			throw new Error(`the Webhook node answered ${started.status}: ${started.text.slice(0, 200)}`);
		}
		const list = await records.waitForExecutions((l) => l.some((e) => !before.has(e.id)), {
			workflowId: workflow.id,
			timeoutMs: 60000,
		});
		const fresh = list.filter((e) => !before.has(e.id));
		if (fresh.length !== 1) throw new Error(`expected one new execution, got ${fresh.length}`);
		return { executionId: fresh[0].id, startedAt };
	}

	/**
	 * Polls the execution until its status is one of `statuses`; returns it with every status seen on the way,
	 * so a test can show the execution really was 'waiting' before it ended.
	 */
	async function waitForStatus(workflowId, executionId, statuses, { timeoutMs = 60000 } = {}) {
		const seen = [];
		const t0 = Date.now();
		for (;;) {
			const execution = await executionById(workflowId, executionId);
			if (execution && seen[seen.length - 1] !== execution.status) seen.push(execution.status);
			if (execution && statuses.includes(execution.status)) return { execution, seen };
			if (Date.now() - t0 > timeoutMs) {
				throw new Error(
					`execution ${executionId} not ${statuses.join('/')} after ${timeoutMs} ms; seen ${seen.join(' → ')}`,
				);
			}
			await sleep(150);
		}
	}

	return { executionById, startRun, waitForStatus };
}

/** The simulator's records of the tasks an execution created (their notifyHook is its resume URL), in creation order. */
function tasksOf(simulator, baseUrl, executionId) {
	return [...simulator.tasks.values()]
		.filter((t) => String(t.notifyHook).startsWith(`${baseUrl}/webhook-waiting/${executionId}?`))
		.sort((a, b) => a.createdAt - b.createdAt);
}

module.exports = { waitTools, tasksOf, sleep };
