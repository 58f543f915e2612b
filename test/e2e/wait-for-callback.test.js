'use strict';
/**
 * Completion → "Wait for Callback" inside a real n8n (dev/n8n-host), over real HTTP: the published example
 * examples/video-wait-for-callback.json (and variants) is started through its Webhook node, parks its
 * execution, and the gateway simulator's callbacks to the execution's resume URL finish it. Everything
 * asserted comes from n8n's own execution records and from what travelled over the wire.
 * Needs `bash dev/n8n-host/install.sh` and a built dist/. Run:
 *   npx jest -c jest.e2e.config.js --runInBand test/e2e/wait-for-callback.test.js
 */
const fs = require('node:fs');
const path = require('node:path');
const { N8nHost } = require('../../dev/n8n-host/host');
const { startSimulator, ANSWER_LIMIT_MS } = require('../../dev/simulator');
const { postJson } = require('../../dev/gateway-callbacks');
const { waitTools } = require('./wait-support');

const REPO = path.resolve(__dirname, '..', '..');
const API_KEY = 'wait-e2e-key-8c3f19b2d4';
const FAIL_MESSAGE = 'Content policy violation (simulated)';
/** Long enough to poke a waiting execution by hand before the simulator's final callback arrives. */
const RENDER_MS = 10000;

const example = JSON.parse(
	fs.readFileSync(path.join(REPO, 'examples', 'video-wait-for-callback.json'), 'utf8'),
);
const WAIT_WF = example.id;
const WEBHOOK_PATH = example.nodes.find((n) => n.type === 'n8n-nodes-base.webhook').parameters.path;
const VIDEO_NODE = example.nodes.find(
	(n) => n.type === 'n8n-nodes-media-gateway.mediaGatewayVideo',
).name;
const SET_NODE = 'After render';

/** A copy of the example with its own id, Webhook path and webhookId, and changed Video parameters. */
function variant(suffix, webhookId, videoParameters, credentials) {
	const wf = JSON.parse(JSON.stringify(example));
	wf.id = `${example.id}${suffix}`;
	wf.name = `${example.name} (${suffix})`;
	const webhook = wf.nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
	webhook.webhookId = webhookId;
	webhook.parameters.path = `${WEBHOOK_PATH}-${suffix.toLowerCase()}`;
	const video = wf.nodes.find((n) => n.name === VIDEO_NODE);
	Object.assign(video.parameters, videoParameters);
	if (credentials) video.credentials = credentials;
	return wf;
}

const downloadVariant = variant('Download', '7d3c5e80-1f2a-4b6c-9d8e-0a1b2c3d4e51', {
	options: { download: true, binaryPropertyName: 'video' },
});
// Its credential points at a gateway whose videos take 10 minutes: no final callback comes in time.
const shortLimitVariant = variant(
	'Short',
	'7d3c5e80-1f2a-4b6c-9d8e-0a1b2c3d4e52',
	{ callbackWaitLimitMinutes: 0.05 },
	{ mediaGatewayApi: { id: 'mediaGatewaySlow', name: 'Media Gateway (slow)' } },
);

/**
 * A Webhook-only workflow. An execution of it, started after some requests were answered and finished in
 * n8n's records, is a barrier: whatever those requests made n8n start went through n8n's (serialised)
 * database before it, so "nothing else started" is checked after an event, not after a guessed pause.
 */
const marker = {
	id: 'mgWaitE2eMarker',
	name: 'Wait e2e marker',
	active: false,
	settings: { executionOrder: 'v1' },
	pinData: {},
	connections: {},
	nodes: [
		{
			id: '5e1d7c2a-9b4f-4c3e-8a6d-2f1b0c9d8e71',
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: '5e1d7c2a-9b4f-4c3e-8a6d-2f1b0c9d8e72',
			parameters: {
				httpMethod: 'POST',
				path: 'wait-e2e-marker',
				responseMode: 'onReceived',
				options: {},
			},
		},
	],
};

/** Polls something this process can see (the simulator's records) until it holds; fails naming it. */
async function until(check, what, timeoutMs = 60000) {
	const deadline = Date.now() + timeoutMs;
	while (!check()) {
		if (Date.now() > deadline)
			throw new Error(`waited ${timeoutMs} ms for ${what}; it did not happen`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

let host;
let sim;
let slowSim;
let tarballDir;
/** The wait-limit run is started right after n8n is up and checked last, so its minute overlaps the rest. */
let shortRun;

let executionById;
let startRun;
let waitForStatus;

/** Runs the marker workflow and waits until n8n has finished that execution. */
async function barrier() {
	const { executionId } = await startRun(marker, { barrier: true });
	const { execution } = await waitForStatus(marker.id, executionId, ['success', 'error']);
	expect(execution.status).toBe('success');
}

/** The ids of all executions except the marker's. */
async function executionIds() {
	return (await host.executions()).filter((e) => e.workflowId !== marker.id).map((e) => e.id);
}

/** The simulator's record of the task this execution created; its notifyHook is the resume URL. */
function taskOf(simulator, executionId) {
	const tasks = [...simulator.tasks.values()].filter((t) =>
		String(t.notifyHook).startsWith(`${host.url}/webhook-waiting/${executionId}?`),
	);
	expect(tasks).toHaveLength(1);
	return tasks[0];
}

function callbacksOf(simulator, taskId) {
	return simulator.callbackLog.filter((entry) => entry.payload.id === taskId);
}

/** The video callback the gateway sends, as the simulator builds it. */
function videoCallback(taskId, status, extra = {}) {
	return {
		id: taskId,
		status,
		type: 'video',
		output: { video_url: '', cover_url: '', duration: 0 },
		created_at: Math.floor(Date.now() / 1000),
		updated_at: Math.floor(Date.now() / 1000),
		...extra,
	};
}

beforeAll(async () => {
	sim = await startSimulator({
		apiKey: API_KEY,
		port: 0,
		videoCompleteAfterMs: RENDER_MS,
		callbackTimeScale: 1,
	});
	slowSim = await startSimulator({ apiKey: API_KEY, port: 0, videoCompleteAfterMs: 10 * 60_000 });
	const tarball = await N8nHost.packPackage(REPO);
	tarballDir = path.dirname(tarball);
	host = new N8nHost({ tarball });
	({ executionById, startRun, waitForStatus } = waitTools(host, (p) => host.webhookUrl(p)));
}, 60000);

beforeAll(async () => {
	await host.installPackage();
	await host.importCredentials([
		{
			id: 'mediaGatewayDemo',
			name: 'Media Gateway (demo)',
			type: 'mediaGatewayApi',
			data: { apiKey: API_KEY, baseUrl: sim.url },
		},
		{
			id: 'mediaGatewaySlow',
			name: 'Media Gateway (slow)',
			type: 'mediaGatewayApi',
			data: { apiKey: API_KEY, baseUrl: slowSim.url },
		},
	]);
	await host.importWorkflows([example, downloadVariant, shortLimitVariant, marker]);
	await host.publish([WAIT_WF, downloadVariant.id, shortLimitVariant.id, marker.id]);
	await host.start();
	shortRun = await startRun(shortLimitVariant, { prompt: 'A paper boat, wait limit e2e' });
	shortRun.parked = await waitForStatus(shortLimitVariant.id, shortRun.executionId, [
		'waiting',
		'success',
		'error',
	]);
}, 240000);

afterAll(async () => {
	if (host) await host.stop();
	if (sim) await sim.close();
	if (slowSim) await slowSim.close();
	if (tarballDir) fs.rmSync(tarballDir, { recursive: true, force: true });
	console.log(`host timings (ms): ${JSON.stringify(host?.timings ?? {})}`);
}, 60000);

describe('Video → Create with Completion "Wait for Callback" in a real n8n', () => {
	test('waits, then the gateway’s final callback resumes it with the finished video; a late duplicate starts nothing', async () => {
		const { executionId } = await startRun(example, { prompt: 'A paper boat, e2e success' });
		const waiting = await waitForStatus(WAIT_WF, executionId, ['waiting', 'success', 'error']);
		expect(waiting.execution.status).toBe('waiting');
		// Parked until the wait limit (60 min), with the task the node created.
		expect(Date.parse(waiting.execution.waitTill) - Date.now()).toBeGreaterThan(55 * 60_000);
		const task = taskOf(sim, executionId);
		expect(task.notifyHook.startsWith(`${host.url}/webhook-waiting/`)).toBe(true);
		expect(task.notifyHook).toMatch(
			new RegExp(`^${host.url}/webhook-waiting/${executionId}\\?signature=[0-9a-f]{64}$`),
		);
		expect(task).toMatchObject({
			endpoint: '/v1/videos',
			model: 'vidmodel',
			prompt: 'A paper boat, e2e success',
			size: '1280x720',
			duration: 5,
		});
		expect(waiting.execution.runData[VIDEO_NODE][0].items[0].json).toMatchObject({
			taskId: task.id,
			status: 'processing',
			state: 'running',
			waitingForCallback: true,
		});
		expect(waiting.execution.runData[SET_NODE]).toBeUndefined();

		const done = await waitForStatus(WAIT_WF, executionId, ['success', 'error'], {
			timeoutMs: RENDER_MS + 60000,
		});
		expect(done.seen).toEqual(expect.arrayContaining(['waiting', 'success']));
		expect(done.seen.indexOf('waiting')).toBeLessThan(done.seen.indexOf('success'));
		const execution = done.execution;
		expect(execution).toMatchObject({
			status: 'success',
			finished: true,
			mode: 'webhook',
			waitTill: null,
		});
		const [item] = execution.runData[VIDEO_NODE].at(-1).items;
		expect(item.json).toMatchObject({
			id: task.id,
			taskId: task.id,
			status: 'completed',
			state: 'succeeded',
			video: { url: task.video.url, duration: 5, width: 1280, height: 720 },
		});
		expect(item.json.waitingForCallback).toBeUndefined();
		expect(item.binary).toBeUndefined();
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(execution.runData[SET_NODE][0].items.map((i) => i.json)).toEqual([
			{ taskId: task.id, state: 'succeeded', videoUrl: task.video.url },
		]);
		// The Webhook node's data survived the park and the resume.
		expect(execution.runData.Webhook[0].items[0].json.body).toEqual({
			prompt: 'A paper boat, e2e success',
		});

		// The gateway's view: the final callback was answered 200 at its first attempt, so inside the 5 s
		// (the simulator, at callbackTimeScale 1, logs an attempt not answered within 5 s as 'timeout').
		// How long the answer took is a figure for bench/trigger-throughput.js, not a bound here.
		const log = callbacksOf(sim, task.id);
		const finals = log.filter((e) => e.payload.status === 'succeed');
		expect(finals.map((e) => [e.attempt, e.status])).toEqual([[1, 200]]);
		console.log(
			`success run: callbacks ${JSON.stringify(log.map((e) => [e.payload.status, e.attempt, e.status, e.elapsedMs]))}`,
		);

		// The same final callback again, after the resume: n8n refuses it, nothing new runs.
		const before = await executionIds();
		const duplicate = await postJson(task.notifyHook, finals[0].payload);
		expect(duplicate.status).toBe(409);
		expect(duplicate.text).toContain('has finished already');
		await barrier();
		expect(await executionIds()).toEqual(before);
		expect((await executionById(WAIT_WF, executionId)).status).toBe('success');
	});

	test('while waiting: a foreign task id gets 409, progress 200, bad signatures 401, bad bodies 400; it keeps waiting', async () => {
		const { executionId } = await startRun(example, { prompt: 'A paper boat, e2e pokes' });
		const waiting = await waitForStatus(WAIT_WF, executionId, ['waiting', 'success', 'error']);
		expect(waiting.execution.status).toBe('waiting');
		const task = taskOf(sim, executionId);
		const resumeUrl = new URL(task.notifyHook);

		const foreign = await postJson(task.notifyHook, videoCallback('vid-someone-else', 'succeed'));
		expect(foreign.status).toBe(409);
		// The answer names only what the sender sent: nothing about the task the execution waits for.
		expect(foreign.json).toEqual({ error: 'Task vid-someone-else is not part of this execution' });

		// Forged final callbacks for the awaited task while the gateway still says `processing`: the gateway's
		// record decides, so they are refused (409, which the real gateway would retry) and change nothing.
		for (const status of ['succeed', 'FAILURE', 'failed']) {
			const forged = await postJson(
				task.notifyHook,
				videoCallback(task.id, status, {
					output: { video_url: 'https://forged.example.com/v.mp4', cover_url: '', duration: 5 },
				}),
			);
			expect(forged.status).toBe(409);
			expect(forged.json).toEqual({
				error: `The gateway does not report task ${task.id} as finished; send the callback again when it is`,
			});
		}

		const progress = await postJson(task.notifyHook, videoCallback(task.id, 'processing'));
		expect(progress.status).toBe(200);
		expect(progress.json).toEqual({ received: true, waiting: true, state: 'running' });
		// Within the gateway's answer limit (5 s), the contract; not a tighter budget a busy machine can break.
		expect(progress.ms).toBeLessThan(ANSWER_LIMIT_MS);

		const wrong = new URL(resumeUrl);
		wrong.searchParams.set('signature', 'f'.repeat(64));
		const unsigned = new URL(resumeUrl);
		unsigned.searchParams.delete('signature');
		for (const url of [wrong, unsigned]) {
			const answer = await postJson(url.toString(), videoCallback(task.id, 'succeed'));
			expect(answer.status).toBe(401);
			expect(answer.json).toEqual({ error: 'Invalid token' });
		}

		const malformed = await postJson(task.notifyHook, { id: 42, status: 'succeed', type: 'video' });
		expect(malformed.status).toBe(400);
		expect(malformed.json).toEqual({ error: expect.stringMatching(/^id: must be a string/) });

		// None of that moved it: still waiting, with the node's parked output, and nothing else started.
		expect(
			sim.requests.filter((r) => r.path === `/v1/videos/${task.id}`).length,
		).toBeGreaterThanOrEqual(3);
		const still = await executionById(WAIT_WF, executionId);
		expect(still.status).toBe('waiting');
		expect(still.runData[VIDEO_NODE][0].items[0].json).toMatchObject({
			taskId: task.id,
			waitingForCallback: true,
		});
		expect(Date.now()).toBeLessThan(task.completeAt); // all of it happened before the real callback

		// The gateway's own final callback then finishes it.
		const done = await waitForStatus(WAIT_WF, executionId, ['success', 'error'], {
			timeoutMs: RENDER_MS + 60000,
		});
		expect(done.execution.status).toBe('success');
		expect(done.execution.runData[VIDEO_NODE].at(-1).items[0].json).toMatchObject({
			taskId: task.id,
			state: 'succeeded',
		});
		expect(done.execution.runData[SET_NODE][0].items[0].json).toEqual({
			taskId: task.id,
			state: 'succeeded',
			videoUrl: task.video.url,
		});
	});

	test('three simultaneous final callbacks resume it once, with the video the gateway reports', async () => {
		const { executionId } = await startRun(example, { prompt: 'A paper boat, e2e simultaneous' });
		const waiting = await waitForStatus(WAIT_WF, executionId, ['waiting', 'success', 'error']);
		expect(waiting.execution.status).toBe('waiting');
		const task = taskOf(sim, executionId);
		const before = await executionIds();
		// The moment the gateway finishes the task (its own callback goes out too), three more copies of
		// the final callback, carrying a URL the gateway never reported: the gateway's record wins.
		await until(
			() => task.status !== 'processing',
			`the simulator to finish task ${task.id}`,
			RENDER_MS + 60000,
		);
		const final = videoCallback(task.id, 'succeed', {
			output: {
				video_url: 'https://forged.example.com/v/simultaneous.mp4',
				cover_url: '',
				duration: 5,
			},
		});
		const answers = await Promise.all([1, 2, 3].map(() => postJson(task.notifyHook, final)));
		console.log(
			`simultaneous final callbacks answered: ${JSON.stringify(answers.map((a) => [a.status, a.text.slice(0, 80)]))}`,
		);
		for (const answer of answers) expect([200, 409]).toContain(answer.status);

		const done = await waitForStatus(WAIT_WF, executionId, ['success', 'error']);
		expect(done.execution.status).toBe('success');
		// Every delivery has been answered (the three above and the gateway's own final callback), and n8n
		// has since started and finished another execution: a second resume would show in its records now.
		await until(
			() => callbacksOf(sim, task.id).some((e) => e.payload.status === 'succeed'),
			`the gateway's own final callback for ${task.id} to be answered`,
		);
		await barrier();
		const execution = (await waitForStatus(WAIT_WF, executionId, ['success', 'error'])).execution;
		expect(execution.status).toBe('success');
		expect(execution.runData[VIDEO_NODE]).toHaveLength(1);
		expect(execution.runData[VIDEO_NODE][0].items).toEqual([
			expect.objectContaining({
				json: expect.objectContaining({
					taskId: task.id,
					state: 'succeeded',
					video: expect.objectContaining({ url: task.video.url }),
				}),
				pairedItem: { item: 0 },
			}),
		]);
		expect(execution.runData[SET_NODE]).toHaveLength(1);
		expect(execution.runData[SET_NODE][0].items.map((i) => i.json)).toEqual([
			{ taskId: task.id, state: 'succeeded', videoUrl: task.video.url },
		]);
		expect(await executionIds()).toEqual(before);
	});

	test('a failed task ends the execution as an error carrying the gateway’s reason', async () => {
		const { executionId } = await startRun(example, { prompt: 'A paper boat [fail]' });
		const waiting = await waitForStatus(WAIT_WF, executionId, ['waiting', 'success', 'error']);
		expect(waiting.execution.status).toBe('waiting');
		const task = taskOf(sim, executionId);

		const done = await waitForStatus(WAIT_WF, executionId, ['success', 'error'], {
			timeoutMs: RENDER_MS + 60000,
		});
		const execution = done.execution;
		expect(execution.status).toBe('error');
		const message = `The gateway reports task ${task.id} as failed: ${FAIL_MESSAGE}`;
		expect(execution.data.resultData.error.message).toBe(message);
		expect(execution.data.resultData.lastNodeExecuted).toBe(VIDEO_NODE);
		expect(execution.runData[VIDEO_NODE].at(-1).error.message).toBe(message);
		expect(execution.runData[SET_NODE]).toBeUndefined();
		// Upstream data is kept (a throw inside webhook() would have wiped it).
		expect(execution.runData.Webhook[0].items[0].json.body).toEqual({
			prompt: 'A paper boat [fail]',
		});
		const finals = callbacksOf(sim, task.id).filter((e) => e.payload.status === 'failed');
		expect(finals.map((e) => [e.attempt, e.status])).toEqual([[1, 200]]);
		expect(finals[0].payload.message).toBe(FAIL_MESSAGE);
	});

	test('with Download on, the resumed node outputs the video as binary video/mp4', async () => {
		const { executionId } = await startRun(downloadVariant, {
			prompt: 'A paper boat, e2e download',
		});
		const waiting = await waitForStatus(downloadVariant.id, executionId, [
			'waiting',
			'success',
			'error',
		]);
		expect(waiting.execution.status).toBe('waiting');
		const task = taskOf(sim, executionId);

		const done = await waitForStatus(downloadVariant.id, executionId, ['success', 'error'], {
			timeoutMs: RENDER_MS + 60000,
		});
		expect(done.execution.status).toBe('success');
		const [item] = done.execution.runData[VIDEO_NODE].at(-1).items;
		expect(item.json).toMatchObject({
			taskId: task.id,
			state: 'succeeded',
			video: { url: task.video.url },
		});
		expect(item.binary.video).toMatchObject({ mimeType: 'video/mp4', fileExtension: 'mp4' });
		const bytes = await host.readBinary(item.binary.video);
		expect(bytes.length).toBe(4096);
		expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
		expect(done.execution.runData[SET_NODE][0].items[0].json).toEqual({
			taskId: task.id,
			state: 'succeeded',
			videoUrl: task.video.url,
		});
		// The download went to the gateway's file URL once.
		expect(sim.requests.filter((r) => r.path === `/files/videos/${task.id}.mp4`)).toHaveLength(1);
	});

	test('the wait limit ends the execution with an error naming the task id', async () => {
		// n8n's wait tracker looks for due executions once a minute, so the 3 s limit fires up to ~70 s late.
		const done = await waitForStatus(
			shortLimitVariant.id,
			shortRun.executionId,
			['success', 'error'],
			{
				timeoutMs: Math.max(10000, 150000 - (Date.now() - shortRun.startedAt)),
			},
		);
		const execution = done.execution;
		// It was parked first, until 3 s after the node ran.
		expect(shortRun.parked.execution.status).toBe('waiting');
		const parkedUntil = Date.parse(shortRun.parked.execution.waitTill) - shortRun.startedAt;
		expect(parkedUntil).toBeGreaterThanOrEqual(2900);
		const task = taskOf(slowSim, shortRun.executionId);
		// ...and not until the 60 min default: counted from the task's creation (the node parks right after it),
		// so however long a busy n8n took to start the run, it is seconds, not the default's hour.
		expect(Date.parse(shortRun.parked.execution.waitTill) - task.createdAt).toBeLessThan(60_000);
		expect(task.status).toBe('processing'); // still rendering: no final callback could have come
		expect(execution.status).toBe('error');
		const message = `Task ${task.id} sent no final callback within 3 s`;
		expect(execution.data.resultData.error.message).toBe(message);
		expect(execution.runData[VIDEO_NODE].at(-1).error.message).toBe(message);
		expect(execution.runData[SET_NODE]).toBeUndefined();
		const endedAfterMs = Date.parse(execution.stoppedAt) - shortRun.startedAt;
		console.log(
			`wait limit 3 s: the execution ended ${(endedAfterMs / 1000).toFixed(1)} s after it started`,
		);
		expect(endedAfterMs).toBeGreaterThanOrEqual(3000);
	}, 180000);

	test('n8n never printed the API key', () => {
		expect(host.redactions).toBe(0);
		expect(host.logs()).not.toContain(API_KEY);
	});
});
