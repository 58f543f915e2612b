'use strict';
/**
 * The Media Gateway Trigger's at-least-once delivery in n8n's queue mode, for real: two webhook processors
 * behind one round-robin URL, one worker, PostgreSQL and Redis (dev/n8n-host/queue-cluster). n8n is made
 * to fail the start of an execution on demand through its `workflow.preExecute` external hook
 * (test/fixtures/start-failure-hook.js), which runs on the webhook processor that received the callback,
 * before the job is put on the queue: the failed delivery must not be answered 200 nor remembered, and the
 * gateway's retry, through either processor, must start exactly one execution.
 * Needs `bash dev/n8n-host/install.sh`, `bash dev/n8n-host/install-services.sh` and a built dist/. Run:
 *   npm run test:queue
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { N8nHost } = require('../../dev/n8n-host/host');
const { QueueCluster } = require('../../dev/n8n-host/queue-cluster');
const { REPO, example, localized, imageCallback, musicCallback, postJson } = require('./support');

const TOKEN = crypto.randomBytes(24).toString('base64url');
const trigger = example('callback-trigger');
const triggerNode = trigger.nodes.find(
	(n) => n.type === 'n8n-nodes-media-gateway.mediaGatewayTrigger',
);
triggerNode.parameters.secretToken = TOKEN;
// No gateway here: only image and music callbacks are sent, which are never confirmed with it.
delete triggerNode.credentials;
const TRIGGER_PATH = `${triggerNode.webhookId}/webhook`;
const CONTROL_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-queue-start-failures-'));
const PLAN = path.join(CONTROL_DIR, 'plan.json');

let cluster;
let tarballDir;

beforeAll(async () => {
	const tarball = await N8nHost.packPackage(REPO);
	tarballDir = path.dirname(tarball);
	cluster = new QueueCluster({
		tarball,
		workers: 1,
		webhooks: 2,
		env: {
			EXTERNAL_HOOK_FILES: path.join(REPO, 'test', 'fixtures', 'start-failure-hook.js'),
			MG_START_FAILURES_FILE: PLAN,
		},
	});
	await cluster.prepare();
	await cluster.main.importWorkflows([localized(trigger, cluster.webhookBaseUrl)]);
	await cluster.main.publish([trigger.id]);
	await cluster.start();
}, 420000);

afterAll(async () => {
	if (cluster) await cluster.stop();
	if (tarballDir) fs.rmSync(tarballDir, { recursive: true, force: true });
	fs.rmSync(CONTROL_DIR, { recursive: true, force: true });
}, 90000);

const url = (base = cluster.webhookUrl(TRIGGER_PATH)) =>
	`${base}?token=${encodeURIComponent(TOKEN)}`;
const taskIdOf = (execution) =>
	execution.runData['Media Gateway Trigger']?.[0]?.items?.[0]?.json?.taskId;
const settled = (e) => ['success', 'error', 'crashed', 'canceled'].includes(e.status);

function failNextStarts(count) {
	fs.writeFileSync(PLAN, JSON.stringify({ workflowId: trigger.id, remaining: count, failed: 0 }));
}
const plan = () => JSON.parse(fs.readFileSync(PLAN, 'utf8'));

async function storedKeyCount() {
	const [row] = await cluster.main.query('SELECT "staticData" FROM workflow_entity WHERE id = ?', [
		trigger.id,
	]);
	const data = typeof row.staticData === 'string' ? JSON.parse(row.staticData) : row.staticData;
	return Object.keys(data?.['node:Media Gateway Trigger']?.dedupe?.entries ?? {}).length;
}

/**
 * Executions of the trigger workflow once everything answered so far has landed: one more callback, answered
 * 200 only after its job was queued, whose execution has run, with every other execution settled too.
 */
let barriers = 0;
async function settledExecutions() {
	const id = `q-delivery-barrier-${++barriers}`;
	const answer = await postJson(url(), imageCallback(id));
	expect({ id, ...answer.json }).toEqual({ id, received: true });
	const list = await cluster.main.waitForExecutions(
		(l) => l.some((e) => taskIdOf(e) === id) && l.every(settled),
		{
			workflowId: trigger.id,
			timeoutMs: 120000,
			intervalMs: 300,
		},
	);
	return list.filter((e) => !String(taskIdOf(e)).startsWith('q-delivery-barrier-'));
}

describe('Media Gateway Trigger in queue mode: at-least-once delivery', () => {
	test('a failed start is answered 500 and forgotten on every processor; the retry starts it once', async () => {
		const before = await settledExecutions();
		const keys = await storedKeyCount();
		const body = musicCallback('q-delivery-1');
		failNextStarts(1);
		const first = await postJson(url(), body);
		expect(first.status).toBe(500);
		expect(plan()).toMatchObject({ remaining: 0, failed: 1 });
		expect(await storedKeyCount()).toBe(keys);

		// The gateway's retry, to each processor directly: the first one starts it, the second is a duplicate.
		const [a, b] = cluster.webhooks;
		const retry = await postJson(url(a.webhookUrl(TRIGGER_PATH)), body);
		expect(retry).toMatchObject({ status: 200, json: { received: true } });
		expect(retry.json.ignored).toBeUndefined();
		// Saved before the 200 went out, so the other processor knows it at once.
		expect(await storedKeyCount()).toBe(keys + 1);
		const again = await postJson(url(b.webhookUrl(TRIGGER_PATH)), body);
		expect(again).toMatchObject({ status: 200, json: { received: true, ignored: 'duplicate' } });

		const after = await settledExecutions();
		const mine = after.filter((e) => taskIdOf(e) === body.id);
		expect(mine).toHaveLength(1);
		expect(mine[0]).toMatchObject({ status: 'success', mode: 'webhook' });
		expect(after).toHaveLength(before.length + 1);
	});

	test('starts that keep failing never get a 200 and leave no execution behind', async () => {
		const before = await settledExecutions();
		failNextStarts(4);
		const body = imageCallback('q-delivery-2');
		const statuses = [];
		for (let i = 0; i < 4; i++) statuses.push((await postJson(url(), body)).status);
		expect(statuses).toEqual([500, 500, 500, 500]);
		expect(plan()).toMatchObject({ remaining: 0, failed: 4 });
		const after = await settledExecutions();
		expect(after.map((e) => e.id)).toEqual(before.map((e) => e.id));
	});
});
