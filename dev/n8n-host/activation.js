'use strict';
/**
 * When a starting n8n serves, and what became of its published workflows' triggers: 2.x records
 * activation in its publication outbox tables, 1.x only logs it.
 */

/** What each kind of n8n process prints once it serves (`start` is checked more closely by the host). */
const READY_LINE = {
	start: 'Editor is now accessible via',
	worker: 'n8n worker is now ready',
	webhook: 'Webhook listener waiting for requests.',
};

/**
 * @typedef {object} Activation one trigger node of an active workflow
 * @property {string} workflowId
 * @property {string|null} nodeId
 * @property {string} status 'activated' or n8n's failure status
 * @property {string|null} errorMessage
 */

/** @typedef {{done: boolean, activations: Activation[]}} ActivationState */

/** The newest publication outbox record before a start (2.x), 0 when there is none yet. */
async function maxOutboxId(database) {
	try {
		const [row] = await database.query('SELECT MAX(id) AS id FROM workflow_publication_outbox');
		return Number(row?.id ?? 0); // PostgreSQL's driver returns bigint as a string
	} catch {
		return 0; // no database or table yet: nothing was published
	}
}

/**
 * n8n 2.x activates published workflows after it is ready, through its publication outbox, and records
 * each trigger's result per version. Webhook triggers are persisted (they keep working across restarts);
 * in-memory ones (schedules, pollers) are re-published at each start-up. A workflow is settled when a
 * publication of it finished during this run, or when its active version has results, nothing of it is
 * in flight and none of its in-memory triggers awaits re-registration.
 * @param {import('./database').N8nDatabase} database
 * @param {number} outboxBefore maxOutboxId() before the start
 * @returns {Promise<ActivationState>}
 */
async function activationFromOutbox(database, outboxBefore) {
	const active = await database.query(
		'SELECT id, "activeVersionId" FROM workflow_entity WHERE active = TRUE AND "activeVersionId" IS NOT NULL',
	);
	if (active.length === 0) return { done: true, activations: [] };
	const outbox = await database.query(
		'SELECT id, "workflowId", status FROM workflow_publication_outbox',
	);
	const activations = [];
	for (const w of active) {
		const mine = outbox.filter((r) => r.workflowId === w.id);
		// Any final record will do: n8n retries a failing workflow, so one of it may always be pending.
		const finishedNow = mine.some(
			(r) =>
				Number(r.id) > outboxBefore &&
				['completed', 'partial_success', 'failed'].includes(r.status),
		);
		const inFlight = mine.some((r) => r.status === 'pending' || r.status === 'in_progress');
		const rows = await database.query(
			`SELECT "workflowId", "nodeId", status, "errorMessage", "triggerKind" FROM workflow_publication_trigger_status
			WHERE "workflowId" = ? AND "versionId" = ? ORDER BY "nodeId"`,
			[w.id, w.activeVersionId],
		);
		const awaitsInMemory = rows.some(
			(r) => r.triggerKind === 'in-memory' && r.status === 'activated',
		);
		if (!finishedNow && (rows.length === 0 || inFlight || awaitsInMemory))
			return { done: false, activations: [] };
		activations.push(...rows.map(({ triggerKind, ...row }) => row));
	}
	return { done: true, activations };
}

/**
 * n8n 1.x activates active workflows at start-up and logs each result: `Activated workflow …` (info) or
 * `Issue on initial workflow activation try of …` (error), both with the workflow id. A workflow is
 * settled when one of them is out; its registered webhooks (webhook_entity, by node name) give the
 * same per-trigger-node rows as 2.x.
 * @param {import('./database').N8nDatabase} database
 * @param {Set<string>} published workflow ids marked active through the host
 * @param {import('./log').LogEntry[]} entries the server's log so far
 * @returns {Promise<ActivationState>}
 */
async function activationFromLog(database, published, entries) {
	if (published.size === 0) return { done: true, activations: [] };
	const activations = [];
	for (const workflowId of published) {
		const mine = entries.filter((e) => e.metadata?.workflowId === workflowId);
		const failure = mine.find((e) =>
			e.message.startsWith('Issue on initial workflow activation try'),
		);
		if (failure) {
			const cause = failure.metadata?.error?.message ?? failure.metadata?.error ?? failure.message;
			activations.push({ workflowId, nodeId: null, status: 'failed', errorMessage: String(cause) });
			continue;
		}
		if (!mine.some((e) => e.message.startsWith('Activated workflow')))
			return { done: false, activations: [] };
		const [workflow] = await database.query('SELECT nodes FROM workflow_entity WHERE id = ?', [
			workflowId,
		]);
		const nodeIds = new Map(JSON.parse(workflow?.nodes ?? '[]').map((n) => [n.name, n.id]));
		const hooks = await database.query(
			'SELECT DISTINCT node FROM webhook_entity WHERE "workflowId" = ? ORDER BY node',
			[workflowId],
		);
		for (const { node } of hooks) {
			activations.push({
				workflowId,
				nodeId: nodeIds.get(node) ?? null,
				status: 'activated',
				errorMessage: null,
			});
		}
	}
	return { done: true, activations };
}

module.exports = { READY_LINE, maxOutboxId, activationFromOutbox, activationFromLog };
