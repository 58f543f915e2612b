'use strict';
/**
 * Completion → "Wait for Callback" for a batch in n8n's queue mode: PostgreSQL, Redis, one main process, one
 * worker and two webhook processors behind one round-robin URL (dev/n8n-host/queue-cluster), every process
 * with the package installed the way n8n installs community packages. The callbacks of one batch reach both
 * webhook processors, at the same moment and repeated; the execution must resume exactly once.
 * The whole cluster runs with EXECUTIONS_DATA_SAVE_ON_SUCCESS=none (the setting with which some n8n 2.x
 * releases lost waiting executions); the workflows whose records the test reads opt back in per workflow
 * (settings.saveDataSuccessExecution = all), one workflow keeps the instance default.
 * Needs `bash dev/n8n-host/install.sh`, `bash dev/n8n-host/install-services.sh` and a built dist/. Run:
 *   npm run test:queue
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { N8nHost } = require('../../dev/n8n-host/host');
const { QueueCluster } = require('../../dev/n8n-host/queue-cluster');
const { startSimulator } = require('../../dev/simulator');
const { mp4Bytes } = require('../../dev/simulator/assets');
const {
	REPO,
	example,
	postJson,
	videoCallback,
	sleep,
	setUpOwner,
	binaryFromMain,
} = require('./support');
const { waitTools, tasksOf } = require('../e2e/wait-support');

const API_KEY = `queue-batch-key-${crypto.randomBytes(8).toString('hex')}`;
const ROWS = 20;
const VIDEO_NODE = 'Render videos';
const DONE_NODE = 'All done';
const batchExample = example('video-batch-wait-for-callback');

function variant(suffix, { video = {}, settings } = {}) {
	const wf = JSON.parse(JSON.stringify(batchExample));
	wf.id = `${batchExample.id}Q${suffix}`;
	wf.name = `${batchExample.name} (queue ${suffix})`;
	if (settings) wf.settings = { ...wf.settings, ...settings };
	const webhook = wf.nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
	webhook.webhookId = crypto.randomUUID();
	webhook.parameters.path = `${webhook.parameters.path}-queue-${suffix.toLowerCase()}`;
	const node = wf.nodes.find((n) => n.name === VIDEO_NODE);
	const { parameters, ...rest } = video;
	Object.assign(node, rest);
	Object.assign(node.parameters, parameters);
	return wf;
}

const keepRecords = { saveDataSuccessExecution: 'all' };
const batchWf = variant('Batch', { settings: keepRecords });
const stormWf = variant('Storm', {
	settings: keepRecords,
	video: {
		credentials: { mediaGatewayApi: { id: 'mediaGatewaySilent', name: 'Media Gateway (silent)' } },
		parameters: { options: { download: true, binaryPropertyName: 'video', concurrency: 5 } },
	},
});
/** Keeps the instance default (none): its finished execution is not stored, so it reports to a receiver. */
const noneWf = (() => {
	const wf = variant('None');
	wf.nodes.push({
		id: crypto.randomUUID(),
		name: 'Report',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [960, 0],
		parameters: {
			method: 'POST',
			url: 'RECEIVER_URL',
			sendBody: true,
			specifyBody: 'json',
			jsonBody:
				'={{ JSON.stringify({ row: $json.row, taskId: $json.taskId, state: $json.state }) }}',
			options: {},
		},
	});
	wf.connections[DONE_NODE] = { main: [[{ node: 'Report', type: 'main', index: 0 }]] };
	return wf;
})();

const promptsFor = (label, n = ROWS) => Array.from({ length: n }, (_, i) => `${label} clip ${i}`);

let sim;
let silentSim;
let cluster;
let tarballDir;
let cookie;
let tools;
let receiver;
const reports = [];

beforeAll(async () => {
	receiver = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			reports.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
			res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
		});
	});
	await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	noneWf.nodes.find((n) => n.name === 'Report').parameters.url =
		`http://127.0.0.1:${receiver.address().port}/report`;

	sim = await startSimulator({
		apiKey: API_KEY,
		port: 0,
		proCompleteAfterMs: 3000,
		videoCompleteJitterMs: 5000,
	});
	silentSim = await startSimulator({
		apiKey: API_KEY,
		port: 0,
		proCompleteAfterMs: 10000,
		videoCompleteJitterMs: 3000,
		sendCallbacks: false,
	});
	const tarball = await N8nHost.packPackage(REPO);
	tarballDir = path.dirname(tarball);
	cluster = new QueueCluster({
		tarball,
		workers: 1,
		webhooks: 2,
		env: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none' },
	});
	await cluster.prepare();
	await cluster.main.importCredentials([
		{
			id: 'mediaGatewayDemo',
			name: 'Media Gateway (demo)',
			type: 'mediaGatewayApi',
			data: { apiKey: API_KEY, baseUrl: sim.url },
		},
		{
			id: 'mediaGatewaySilent',
			name: 'Media Gateway (silent)',
			type: 'mediaGatewayApi',
			data: { apiKey: API_KEY, baseUrl: silentSim.url },
		},
	]);
	const workflows = [batchWf, stormWf, noneWf];
	await cluster.main.importWorkflows(workflows);
	await cluster.main.publish(workflows.map((w) => w.id));
	await cluster.start();
	cookie = await setUpOwner(cluster.main.url);
	tools = waitTools(cluster.main, (p) => cluster.webhookUrl(p));
}, 480000);

afterAll(async () => {
	if (cluster && process.env.N8N_E2E_LOG_FILE)
		fs.writeFileSync(process.env.N8N_E2E_LOG_FILE, cluster.logs());
	if (cluster) await cluster.stop();
	for (const s of [sim, silentSim]) if (s) await s.close();
	if (receiver) await new Promise((resolve) => receiver.close(resolve));
	if (tarballDir) fs.rmSync(tarballDir, { recursive: true, force: true });
	console.log(
		`queue cluster timings (ms): ${JSON.stringify(cluster?.timings ?? {})}; balancer counts ${JSON.stringify(cluster?.balancer?.counts)}`,
	);
}, 90000);

/** Execution ids a process's log says it ran (worker) or put on the queue (webhook processor, main). */
function loggedIds(names, pattern) {
	return names.flatMap((name) =>
		cluster.entriesOf(name).flatMap((entry) => {
			const match = pattern.exec(entry.message);
			return match ? [match[1]] : [];
		}),
	);
}
const startedOnWorker = (id) =>
	loggedIds(
		cluster.workers.map((h) => h.name),
		/^Worker started execution (\d+) /,
	).filter((x) => x === id);
/** How often the webhook processors put the execution on the queue: its start, then each resume. */
const enqueuedByWebhooks = (id) =>
	loggedIds(
		cluster.webhooks.map((h) => h.name),
		/^Enqueued execution (\d+) /,
	).filter((x) => x === id);

function tasksByRow(simulator, executionId, prompts) {
	const tasks = tasksOf(simulator, cluster.webhookBaseUrl, executionId);
	expect(tasks).toHaveLength(prompts.length);
	return prompts.map((prompt) => tasks.find((t) => t.prompt === prompt));
}

async function parked(workflow, prompts) {
	const run = await tools.startRun(workflow, { prompts });
	const waiting = await tools.waitForStatus(
		workflow.id,
		run.executionId,
		['waiting', 'success', 'error'],
		{ timeoutMs: 120000 },
	);
	expect(waiting.execution.status).toBe('waiting');
	return { ...run, waiting: waiting.execution };
}

describe('Wait for Callback with 20 items in queue mode (two webhook processors)', () => {
	test('parked in PostgreSQL while 20 tasks render; callbacks through both processors; resumed once on a worker, 20 items in order', async () => {
		const prompts = promptsFor('queue batch');
		const countsBefore = [...cluster.balancer.counts];
		const { executionId } = await parked(batchWf, prompts);
		const tasks = tasksByRow(sim, executionId, prompts);
		expect(tasks[0].notifyHook).toMatch(
			new RegExp(
				`^${cluster.webhookBaseUrl}/webhook-waiting/${executionId}\\?signature=[0-9a-f]{64}$`,
			),
		);

		const done = await tools.waitForStatus(batchWf.id, executionId, ['success', 'error'], {
			timeoutMs: 180000,
		});
		expect(done.seen.indexOf('waiting')).toBeLessThan(done.seen.indexOf('success'));
		const execution = done.execution;
		expect(execution).toMatchObject({ status: 'success', finished: true, waitTill: null });
		expect(Date.parse(execution.stoppedAt)).toBeGreaterThanOrEqual(
			Math.max(...tasks.map((t) => t.completeAt)) - 1000,
		);
		expect(execution.runData[VIDEO_NODE]).toHaveLength(1);
		expect(
			execution.runData[VIDEO_NODE][0].items.map((i) => [
				i.json.taskId,
				i.json.state,
				i.pairedItem,
			]),
		).toEqual(tasks.map((t, item) => [t.id, 'succeeded', { item }]));
		expect(execution.runData[DONE_NODE][0].items.map((i) => [i.json.row, i.json.videoUrl])).toEqual(
			tasks.map((t, row) => [row, t.video.url]),
		);
		// Both processors received callbacks of this batch; the resume was queued once; the worker ran it twice.
		expect(cluster.balancer.counts.every((n, i) => n > countsBefore[i])).toBe(true);
		expect(enqueuedByWebhooks(executionId)).toHaveLength(2);
		expect(startedOnWorker(executionId)).toHaveLength(2);
	}, 300000);

	test('foreign and forged callbacks refused; a storm of final callbacks through both processors resumes it once', async () => {
		const prompts = promptsFor('queue storm');
		const { executionId } = await parked(stormWf, prompts);
		const tasks = tasksByRow(silentSim, executionId, prompts);
		const hook = tasks[0].notifyHook;
		// Two of each, so both processors (round robin) answer each kind.
		for (let i = 0; i < 2; i++) {
			const foreign = await postJson(hook, videoCallback('vid_not_in_this_batch', 'succeed'));
			expect(foreign).toMatchObject({
				status: 409,
				json: { error: 'Task vid_not_in_this_batch is not part of this execution' },
			});
			const forged = await postJson(
				hook,
				videoCallback(tasks[2].id, i === 0 ? 'succeed' : 'FAILURE'),
			);
			expect(forged.status).toBe(409);
		}
		expect(Date.now()).toBeLessThan(Math.min(...tasks.map((t) => t.completeAt)));
		expect((await tools.executionById(stormWf.id, executionId)).status).toBe('waiting');

		const lastDoneAt = Math.max(...tasks.map((t) => t.completeAt));
		while (Date.now() < lastDoneAt) await sleep(Math.min(250, lastDoneAt - Date.now()));
		const before = (await cluster.main.executions()).map((e) => e.id);
		const countsBefore = [...cluster.balancer.counts];
		const storm = tasks.flatMap((t) => [1, 2, 3].map(() => silentSim.callbackFor(t.id)));
		const answers = await Promise.all(storm.map((payload) => postJson(hook, payload)));
		const counts = answers.reduce(
			(acc, a) => ({ ...acc, [a.status]: (acc[a.status] ?? 0) + 1 }),
			{},
		);
		console.log(
			`queue storm of ${answers.length} final callbacks answered: ${JSON.stringify(counts)}; per processor ${JSON.stringify(cluster.balancer.counts.map((n, i) => n - countsBefore[i]))}`,
		);
		for (const answer of answers) expect([200, 409]).toContain(answer.status);
		expect(cluster.balancer.counts.every((n, i) => n - countsBefore[i] >= 20)).toBe(true);

		const done = await tools.waitForStatus(stormWf.id, executionId, ['success', 'error'], {
			timeoutMs: 240000,
		});
		expect(done.execution.status).toBe('success');
		// Retries of the whole storm after the resume: refused by n8n on both processors.
		const late = await Promise.all(
			tasks.slice(0, 4).map((t) => postJson(hook, silentSim.callbackFor(t.id))),
		);
		expect(late.map((a) => a.status)).toEqual([409, 409, 409, 409]);
		await sleep(2000);
		const execution = await tools.executionById(stormWf.id, executionId);
		expect(execution.status).toBe('success');
		expect(execution.runData[VIDEO_NODE]).toHaveLength(1);
		expect(execution.runData[DONE_NODE]).toHaveLength(1);
		const items = execution.runData[VIDEO_NODE][0].items;
		expect(items.map((i) => [i.json.taskId, i.pairedItem])).toEqual(
			tasks.map((t, item) => [t.id, { item }]),
		);
		expect(items[11].binary.video.id).toMatch(/^database:/);
		expect(
			(await binaryFromMain(cluster.main.url, cookie, items[11].binary.video)).equals(mp4Bytes()),
		).toBe(true);
		expect((await cluster.main.executions()).map((e) => e.id)).toEqual(before);
		expect(enqueuedByWebhooks(executionId)).toHaveLength(2);
		expect(startedOnWorker(executionId)).toHaveLength(2);
	}, 360000);

	test('with EXECUTIONS_DATA_SAVE_ON_SUCCESS=none a parked batch still resumes and finishes', async () => {
		const prompts = promptsFor('queue none', 5);
		const { executionId } = await parked(noneWf, prompts);
		const tasks = tasksByRow(sim, executionId, prompts);
		// Every row reaches the node after the batch: the resumed execution ran to its end on a worker.
		while (reports.length < prompts.length) await sleep(250);
		expect(reports.map((r) => [r.row, r.taskId, r.state])).toEqual(
			tasks.map((t, row) => [row, t.id, 'succeeded']),
		);
		expect(startedOnWorker(executionId)).toHaveLength(2);
		await sleep(1500);
		expect(reports).toHaveLength(prompts.length);
		// As configured, n8n keeps no record of the successful execution.
		const record = await tools.executionById(noneWf.id, executionId);
		console.log(
			`EXECUTIONS_DATA_SAVE_ON_SUCCESS=none: the finished execution's record is ${record ? record.status : 'gone'}`,
		);
		if (record) expect(record.status).not.toBe('waiting');
	}, 300000);

	test('no process printed the API key', () => {
		expect(cluster.logs()).not.toContain(API_KEY);
	});
});
