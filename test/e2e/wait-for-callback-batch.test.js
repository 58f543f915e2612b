'use strict';
/**
 * Completion → "Wait for Callback" for a whole batch, inside a real n8n (dev/n8n-host, regular mode), over
 * real HTTP: the published example examples/video-batch-wait-for-callback.json (and variants) is started
 * through its Webhook node with 20 prompts, parks one execution while 20 tasks render in the gateway
 * simulator, and resumes once when the last task is done. Everything asserted comes from n8n's own execution
 * records and from what travelled over the wire. Queue mode: test/queue/wait-for-callback-batch.test.js.
 * Needs `bash dev/n8n-host/install.sh` and a built dist/. Run:
 *   npx jest -c jest.e2e.config.js --runInBand test/e2e/wait-for-callback-batch.test.js
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { N8nHost } = require('../../dev/n8n-host/host');
const { startSimulator } = require('../../dev/simulator');
const { postJson, videoCallback } = require('../../dev/gateway-callbacks');
const { mapLimit } = require('../../dev/load-generation');
const { waitTools, tasksOf, sleep } = require('./wait-support');

const REPO = path.resolve(__dirname, '..', '..');
const API_KEY = 'batch-e2e-key-5d1c7a93e2';
const FAIL_MESSAGE = 'Content policy violation (simulated)';
const ROWS = 20;
/** Pro tasks finish 3 to 8 s after creation, in random order. */
const RENDER_MS = 3000;
const JITTER_MS = 5000;

const example = JSON.parse(
	fs.readFileSync(path.join(REPO, 'examples', 'video-batch-wait-for-callback.json'), 'utf8'),
);
const VIDEO_NODE = 'Render videos';
const DONE_NODE = 'All done';

/** A copy of the example with its own id, Webhook path and webhookId, and changed Video node fields. */
function variant(suffix, videoNode = {}) {
	const wf = JSON.parse(JSON.stringify(example));
	wf.id = `${example.id}${suffix}`;
	wf.name = `${example.name} (${suffix})`;
	const webhook = wf.nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
	webhook.webhookId = crypto.randomUUID();
	webhook.parameters.path = `${webhook.parameters.path}-${suffix.toLowerCase()}`;
	const video = wf.nodes.find((n) => n.name === VIDEO_NODE);
	const { parameters, ...rest } = videoNode;
	Object.assign(video, rest);
	Object.assign(video.parameters, parameters);
	return wf;
}

const credential = (id, name) => ({ credentials: { mediaGatewayApi: { id, name } } });
const continueOnFail = { onError: 'continueRegularOutput' };
// Callbacks left to the test, and the videos downloaded on resume.
const stormWf = variant('Storm', {
	...credential('mediaGatewaySilent', 'Media Gateway (silent)'),
	parameters: { options: { download: true, binaryPropertyName: 'video', concurrency: 5 } },
});
const failWf = variant('Fail', continueOnFail);
// Against a gateway whose videos take 10 minutes: the 3 s wait limit passes first.
const slow = credential('mediaGatewaySlow', 'Media Gateway (slow)');
const limitWf = variant('Limit', { ...slow, parameters: { callbackWaitLimitMinutes: 0.05 } });
const limitCofWf = variant('LimitCof', {
	...slow,
	...continueOnFail,
	parameters: { callbackWaitLimitMinutes: 0.05 },
});

const promptsFor = (label, n = ROWS) => Array.from({ length: n }, (_, i) => `${label} clip ${i}`);

let host;
let sim;
let silentSim;
let slowSim;
let tarballDir;
let tools;
/** The wait-limit runs start right after n8n is up and are checked last, so their minute overlaps the rest. */
const limitRuns = {};

beforeAll(async () => {
	sim = await startSimulator({
		apiKey: API_KEY,
		port: 0,
		proCompleteAfterMs: RENDER_MS,
		videoCompleteJitterMs: JITTER_MS,
	});
	silentSim = await startSimulator({
		apiKey: API_KEY,
		port: 0,
		proCompleteAfterMs: 10000,
		videoCompleteJitterMs: 3000,
		sendCallbacks: false,
	});
	slowSim = await startSimulator({
		apiKey: API_KEY,
		port: 0,
		videoCompleteAfterMs: 10 * 60_000,
		proCompleteAfterMs: 10 * 60_000,
	});
	const tarball = await N8nHost.packPackage(REPO);
	tarballDir = path.dirname(tarball);
	host = new N8nHost({ tarball });
	tools = waitTools(host, (p) => host.webhookUrl(p));
	await host.installPackage();
	await host.importCredentials([
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
		{
			id: 'mediaGatewaySlow',
			name: 'Media Gateway (slow)',
			type: 'mediaGatewayApi',
			data: { apiKey: API_KEY, baseUrl: slowSim.url },
		},
	]);
	const workflows = [example, stormWf, failWf, limitWf, limitCofWf];
	await host.importWorkflows(workflows);
	await host.publish(workflows.map((w) => w.id));
	await host.start();
	for (const [name, wf] of [
		['plain', limitWf],
		['cof', limitCofWf],
	]) {
		limitRuns[name] = await tools.startRun(wf, { prompts: promptsFor(`limit ${name}`, 3) });
		limitRuns[name].parked = await tools.waitForStatus(wf.id, limitRuns[name].executionId, [
			'waiting',
			'success',
			'error',
		]);
	}
}, 300000);

afterAll(async () => {
	if (host && process.env.N8N_E2E_LOG_FILE)
		fs.writeFileSync(process.env.N8N_E2E_LOG_FILE, host.logs());
	if (host) await host.stop();
	for (const s of [sim, silentSim, slowSim]) if (s) await s.close();
	if (tarballDir) fs.rmSync(tarballDir, { recursive: true, force: true });
	console.log(`host timings (ms): ${JSON.stringify(host?.timings ?? {})}`);
}, 60000);

/** The execution's tasks, one per prompt, in the prompts' (input) order. */
function tasksByRow(simulator, executionId, prompts) {
	const tasks = tasksOf(simulator, host.url, executionId);
	expect(tasks).toHaveLength(prompts.length);
	return prompts.map((prompt) => {
		const task = tasks.find((t) => t.prompt === prompt);
		expect(task).toBeDefined();
		return task;
	});
}

async function parked(workflow, prompts) {
	const run = await tools.startRun(workflow, { prompts });
	const waiting = await tools.waitForStatus(workflow.id, run.executionId, [
		'waiting',
		'success',
		'error',
	]);
	expect(waiting.execution.status).toBe('waiting');
	return { ...run, waiting: waiting.execution };
}

describe('Wait for Callback with 20 items in a real n8n', () => {
	test('one parked execution while 20 tasks render; resumed once, after the last one, with 20 items in input order', async () => {
		const prompts = promptsFor('batch');
		const { executionId, waiting } = await parked(example, prompts);
		const tasks = tasksByRow(sim, executionId, prompts);
		// Every task carries this execution's resume URL, n8n's signature intact.
		expect(new Set(tasks.map((t) => t.notifyHook)).size).toBe(1);
		expect(tasks[0].notifyHook).toMatch(
			new RegExp(`^${host.url}/webhook-waiting/${executionId}\\?signature=[0-9a-f]{64}$`),
		);
		expect(tasks.every((t) => t.model === 'vidmodel-pro')).toBe(true);
		expect(
			waiting.runData[VIDEO_NODE][0].items.map((i) => [
				i.json.taskId,
				i.json.waitingForCallback,
				i.pairedItem,
			]),
		).toEqual(tasks.map((t, item) => [t.id, true, { item }]));
		expect(waiting.runData[DONE_NODE]).toBeUndefined();

		// While the tasks render, the execution stays parked: look right after the first final callback was accepted.
		const ids = new Set(tasks.map((t) => t.id));
		const lastDoneAt = Math.max(...tasks.map((t) => t.completeAt));
		while (
			!sim.callbackLog.some(
				(e) => ids.has(e.payload.id) && e.payload.status === 'succeed' && e.status === 200,
			)
		) {
			await sleep(100);
		}
		const midway = await tools.executionById(example.id, executionId);
		const unfinished = tasks.filter((t) => t.status === 'processing').length;
		console.log(
			`after the first accepted final callback: execution ${midway.status}, ${unfinished} of ${ROWS} tasks still rendering`,
		);
		if (unfinished > 0) expect(midway.status).toBe('waiting');

		const done = await tools.waitForStatus(example.id, executionId, ['success', 'error'], {
			timeoutMs: 120000,
		});
		const execution = done.execution;
		expect(done.seen.indexOf('waiting')).toBeLessThan(done.seen.indexOf('success'));
		expect(execution).toMatchObject({ status: 'success', finished: true, waitTill: null });
		// Resumed after the last task finished on the gateway, not before.
		expect(Date.parse(execution.stoppedAt)).toBeGreaterThanOrEqual(lastDoneAt - 1000);
		// The tasks did finish in another order than they were listed.
		const finishOrder = [...tasks.keys()].sort((a, b) => tasks[a].completeAt - tasks[b].completeAt);
		expect(finishOrder).not.toEqual([...tasks.keys()]);

		expect(execution.runData[VIDEO_NODE]).toHaveLength(1);
		const items = execution.runData[VIDEO_NODE][0].items;
		expect(items).toHaveLength(ROWS);
		items.forEach((item, row) => {
			expect(item.pairedItem).toEqual({ item: row });
			expect(item.json).toMatchObject({
				id: tasks[row].id,
				taskId: tasks[row].id,
				status: 'completed',
				state: 'succeeded',
				video: { url: tasks[row].video.url, duration: 5, width: 1280, height: 720 },
			});
			expect(item.json.waitingForCallback).toBeUndefined();
		});
		// The next node ran once, and `$('Prompt list').item` found each row through the pairing.
		expect(execution.runData[DONE_NODE]).toHaveLength(1);
		expect(execution.runData[DONE_NODE][0].items.map((i) => i.json)).toEqual(
			tasks.map((t, row) => ({
				row,
				prompt: prompts[row],
				taskId: t.id,
				state: 'succeeded',
				videoUrl: t.video.url,
			})),
		);

		// The gateway's view: final callbacks sent with its retry schedule, answered inside its 5 s.
		const finalsOf = () =>
			sim.callbackLog.filter((e) => ids.has(e.payload.id) && e.payload.status === 'succeed');
		while (new Set(finalsOf().map((e) => e.payload.id)).size < ROWS) await sleep(200);
		const finals = finalsOf();
		expect(finals.filter((e) => e.status === 200).length).toBeGreaterThanOrEqual(1);
		// 409: n8n's own answer once the execution resumed; 'timeout': n8n took longer than the gateway's 5 s
		// to reach the node on an overloaded machine (the gateway then retries, as it did here).
		for (const entry of finals) expect([200, 409, 'timeout']).toContain(entry.status);
		const answerMs = finals.map((e) => e.elapsedMs).sort((a, b) => a - b);
		console.log(
			`final callbacks: ${finals.length} attempts, statuses ${JSON.stringify(finals.map((e) => e.status))}, answer ms p50 ${answerMs[Math.floor(answerMs.length / 2)]} max ${answerMs.at(-1)}`,
		);

		// Late duplicates of every final callback: refused by n8n, nothing new runs.
		const before = (await host.executions()).map((e) => e.id);
		const late = await mapLimit(tasks, 10, (t) => postJson(t.notifyHook, sim.callbackFor(t.id)));
		expect(late.map((a) => a.status)).toEqual(tasks.map(() => 409));
		await sleep(1500);
		expect((await host.executions()).map((e) => e.id)).toEqual(before);
		expect((await tools.executionById(example.id, executionId)).runData[VIDEO_NODE]).toHaveLength(
			1,
		);
	}, 180000);

	test('foreign ids and forged finals are refused while it waits; a storm of final callbacks resumes it once, videos downloaded', async () => {
		const prompts = promptsFor('storm');
		const { executionId } = await parked(stormWf, prompts);
		const tasks = tasksByRow(silentSim, executionId, prompts);
		const hook = tasks[0].notifyHook;

		const foreign = await postJson(hook, videoCallback('vid_not_in_this_batch', 'succeed'));
		expect(foreign).toMatchObject({
			status: 409,
			json: { error: 'Task vid_not_in_this_batch is not part of this execution' },
		});
		for (const status of ['succeed', 'FAILURE']) {
			const forged = await postJson(
				hook,
				videoCallback(tasks[3].id, status, { failReason: 'forged' }),
			);
			expect(forged.status).toBe(409);
			expect(forged.json.error).toBe(
				`The gateway does not report task ${tasks[3].id} as finished; send the callback again when it is`,
			);
		}
		const progress = await postJson(hook, videoCallback(tasks[5].id, 'processing'));
		expect(progress).toMatchObject({ status: 200, json: { received: true, waiting: true } });
		// All of that happened while every task was still rendering, and moved nothing.
		expect(Date.now()).toBeLessThan(Math.min(...tasks.map((t) => t.completeAt)));
		expect((await tools.executionById(stormWf.id, executionId)).status).toBe('waiting');

		// Every task done on the gateway; then each final callback three times, all at once.
		const lastDoneAt = Math.max(...tasks.map((t) => t.completeAt));
		while (Date.now() < lastDoneAt) await sleep(Math.min(250, lastDoneAt - Date.now()));
		const before = (await host.executions()).map((e) => e.id);
		const storm = tasks.flatMap((t) => [1, 2, 3].map(() => silentSim.callbackFor(t.id)));
		const answers = await Promise.all(storm.map((payload) => postJson(hook, payload)));
		const counts = answers.reduce(
			(acc, a) => ({ ...acc, [a.status]: (acc[a.status] ?? 0) + 1 }),
			{},
		);
		console.log(`storm of ${answers.length} final callbacks answered: ${JSON.stringify(counts)}`);
		for (const answer of answers) expect([200, 409]).toContain(answer.status);

		const done = await tools.waitForStatus(stormWf.id, executionId, ['success', 'error'], {
			timeoutMs: 240000,
		});
		expect(done.execution.status).toBe('success');
		await sleep(1500);
		const execution = await tools.executionById(stormWf.id, executionId);
		expect(execution.status).toBe('success');
		expect(execution.runData[VIDEO_NODE]).toHaveLength(1);
		expect(execution.runData[DONE_NODE]).toHaveLength(1);
		const items = execution.runData[VIDEO_NODE][0].items;
		expect(items.map((i) => [i.json.taskId, i.json.state, i.pairedItem])).toEqual(
			tasks.map((t, item) => [t.id, 'succeeded', { item }]),
		);
		for (const item of items)
			expect(item.binary.video).toMatchObject({ mimeType: 'video/mp4', fileExtension: 'mp4' });
		const bytes = await host.readBinary(items[7].binary.video);
		expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
		expect((await host.executions()).map((e) => e.id)).toEqual(before);
	}, 360000);

	test('one failed task under Continue On Fail: 19 results and 1 error item, each in its input’s place', async () => {
		const prompts = promptsFor('fail');
		prompts[7] = `${prompts[7]} [fail]`;
		const { executionId } = await parked(failWf, prompts);
		const tasks = tasksByRow(sim, executionId, prompts);
		const done = await tools.waitForStatus(failWf.id, executionId, ['success', 'error'], {
			timeoutMs: 120000,
		});
		expect(done.execution.status).toBe('success');
		const items = done.execution.runData[VIDEO_NODE][0].items;
		expect(items).toHaveLength(ROWS);
		expect(items.map((i) => i.pairedItem)).toEqual(tasks.map((_, item) => ({ item })));
		expect(items.filter((i) => i.json.state === 'succeeded')).toHaveLength(ROWS - 1);
		expect(items[7].json).toMatchObject({
			error: `The gateway reports task ${tasks[7].id} as failed: ${FAIL_MESSAGE}`,
			taskId: tasks[7].id,
			state: 'failed',
			failReason: FAIL_MESSAGE,
		});
		expect(done.execution.runData[DONE_NODE][0].items.map((i) => i.json.state)).toEqual(
			prompts.map((_, row) => (row === 7 ? 'failed' : 'succeeded')),
		);
	}, 180000);

	test('the wait limit: an error naming every unfinished task, or (Continue On Fail) one timed-out item per input', async () => {
		// n8n's wait tracker looks for due executions once a minute, so the 3 s limit fires up to ~70 s late.
		const remaining = (run) => Math.max(10000, 270000 - (Date.now() - run.startedAt));
		const plain = await tools.waitForStatus(
			limitWf.id,
			limitRuns.plain.executionId,
			['success', 'error'],
			{
				timeoutMs: remaining(limitRuns.plain),
			},
		);
		const plainTasks = tasksByRow(
			slowSim,
			limitRuns.plain.executionId,
			promptsFor('limit plain', 3),
		);
		expect(limitRuns.plain.parked.execution.status).toBe('waiting');
		expect(limitRuns.cof.parked.execution.status).toBe('waiting');
		expect(plain.execution.status).toBe('error');
		const ids = plainTasks.map((t) => t.id);
		expect(plain.execution.data.resultData.error.message).toBe(
			`3 of 3 video tasks did not report a final state within 3 s: ${ids.join(', ')}`,
		);
		expect(plain.execution.data.resultData.error.description).toContain(
			`Task ID ${ids.join(', ')}`,
		);
		expect(plain.execution.runData[DONE_NODE]).toBeUndefined();

		const cof = await tools.waitForStatus(
			limitCofWf.id,
			limitRuns.cof.executionId,
			['success', 'error'],
			{
				timeoutMs: remaining(limitRuns.cof),
			},
		);
		const cofTasks = tasksByRow(slowSim, limitRuns.cof.executionId, promptsFor('limit cof', 3));
		expect(cof.execution.status).toBe('success');
		const items = cof.execution.runData[VIDEO_NODE].at(-1).items;
		expect(items.map((i) => [i.json.taskId, i.json.timedOut, i.pairedItem])).toEqual(
			cofTasks.map((t, item) => [t.id, true, { item }]),
		);
		expect(items[0].json.error).toBe(
			`Task ${cofTasks[0].id} did not report a final state within 3 s`,
		);
		expect(items[0].json.description).toContain('"Get Task" or "Wait for Task"');
		expect(cof.execution.runData[DONE_NODE][0].items.map((i) => i.json.taskId)).toEqual(
			cofTasks.map((t) => t.id),
		);
	}, 300000);

	test('n8n never printed the API key', () => {
		expect(host.redactions).toBe(0);
		expect(host.logs()).not.toContain(API_KEY);
	});
});
