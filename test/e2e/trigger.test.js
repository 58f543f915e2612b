'use strict';
/**
 * Media Gateway Trigger inside a real n8n (tools/n8n-host), over real HTTP: the published example workflow
 * examples/callback-trigger.json receives callbacks at its production URL; what it did is read back from
 * n8n's own execution records. Also runs examples/video-with-callback.json, whose task's callbacks the
 * gateway simulator sends to that URL.
 * Needs `bash tools/n8n-host/install.sh` and a built dist/. Run:
 *   npx jest -c jest.e2e.config.js --runInBand test/e2e/trigger.test.js
 */
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { N8nHost } = require('../../tools/n8n-host/host');
const { startSimulator } = require('../simulator');
const { imageCallback } = require('../fixtures/callbacks');
const { prng, quantile } = require('../fixtures/load');

const REPO = path.resolve(__dirname, '..', '..');
const API_KEY = 'trigger-e2e-key-5d81c7a2e9';
const FAIL_MESSAGE = 'Content policy violation (simulated)';
/** The gateway wants its 200 within 5 s; every answer here must come well inside that. */
const ANSWER_BUDGET_MS = 2500;

function example(file) {
	return JSON.parse(fs.readFileSync(path.join(REPO, 'examples', file), 'utf8'));
}

/** The examples point at n8n's default local address; tests point them at this host. */
function localizedTo(workflow, hostUrl) {
	return JSON.parse(JSON.stringify(workflow).split('http://localhost:5678/').join(`${hostUrl}/`));
}

const triggerWorkflow = example('callback-trigger.json');
const triggerNode = triggerWorkflow.nodes.find((n) => n.type === 'n8n-nodes-media-gateway.mediaGatewayTrigger');
const TOKEN = triggerNode.parameters.secretToken;
const TRIGGER_WF = triggerWorkflow.id;
const videoExample = example('video-with-callback.json');
const VIDEO_FAIL_WF = `${videoExample.id}Fail`;

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

let host;
let sim;
let retrySim;
let productionUrl;
let tarballDir;
/** Every answer time measured in this file: [label, ms]. */
const answerTimes = [];

/** POSTs raw text (or JSON of a value) and measures the time to the full answer. */
async function post(url, body, { label = 'callback', contentType = 'application/json', raw = false } = {}) {
	const t0 = performance.now();
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': contentType },
		body: raw ? body : JSON.stringify(body),
	});
	const text = await response.text();
	const ms = performance.now() - t0;
	answerTimes.push([label, ms]);
	let json;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: response.status, text, json, ms };
}

function urlWithToken(token = TOKEN) {
	return `${productionUrl}?token=${encodeURIComponent(token)}`;
}

async function triggerExecutions() {
	return host.executions({ workflowId: TRIGGER_WF });
}

function triggerItem(execution) {
	return execution.runData['Media Gateway Trigger']?.[0]?.items?.[0]?.json;
}

function executionsOf(list, taskId) {
	return list.filter((e) => triggerItem(e)?.taskId === taskId);
}

/** Waits until each task id has a finished execution, then a moment longer to catch any late second one. */
async function waitForTaskExecutions(taskIds, { timeoutMs = 60000 } = {}) {
	await host.waitForExecutions(
		(list) => taskIds.every((id) => executionsOf(list, id).some((e) => e.finished || e.status === 'error')),
		{ workflowId: TRIGGER_WF, timeoutMs },
	);
	await sleep(1000);
	return triggerExecutions();
}

/** After requests that must start nothing: n8n had time to start something, and did not. */
async function expectNoNewExecutions(before) {
	await sleep(1500);
	const after = await triggerExecutions();
	expect(after.map((e) => e.id)).toEqual(before.map((e) => e.id));
}

beforeAll(async () => {
	sim = await startSimulator({ apiKey: API_KEY, port: 0, videoCompleteAfterMs: 2500 });
	// Only its sendCallback is used: the spec's retry schedule (10/30/60 s, 5 s answer limit) at a tenth.
	retrySim = await startSimulator({ apiKey: 'retry-sim-unused-key', port: 0, callbackTimeScale: 0.1 });
	const tarball = await N8nHost.packPackage(REPO);
	tarballDir = path.dirname(tarball);
	host = new N8nHost({ tarball });
}, 60000);

// Split so a failing install names its step; one host for the whole file.
beforeAll(async () => {
	productionUrl = host.webhookUrl(`${triggerNode.webhookId}/webhook`);
	const videoOk = localizedTo(videoExample, host.url);
	const videoFail = localizedTo(videoExample, host.url);
	videoFail.id = VIDEO_FAIL_WF;
	videoFail.name = `${videoExample.name} ([fail])`;
	videoFail.nodes.find((n) => n.name === 'Create video').parameters.prompt = 'A paper boat [fail]';
	await host.installPackage();
	await host.importCredentials([
		{ id: 'mediaGatewayDemo', name: 'Media Gateway (demo)', type: 'mediaGatewayApi', data: { apiKey: API_KEY, baseUrl: sim.url } },
	]);
	await host.importWorkflows([localizedTo(triggerWorkflow, host.url), videoOk, videoFail]);
	await host.publish(TRIGGER_WF);
	const started = await host.start();
	expect(started.activations).toEqual([
		{ workflowId: TRIGGER_WF, nodeId: triggerNode.id, status: 'activated', errorMessage: null },
	]);
}, 240000);

afterAll(async () => {
	if (host) await host.stop();
	if (sim) await sim.close();
	if (retrySim) await retrySim.close();
	if (tarballDir) fs.rmSync(tarballDir, { recursive: true, force: true });
	const times = answerTimes.map(([, ms]) => ms).sort((a, b) => a - b);
	if (times.length > 0) {
		const at = (q) => quantile(times, q).toFixed(0);
		console.log(
			`trigger answers: ${times.length}, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${times[times.length - 1].toFixed(0)} ms; ` +
				`host timings (ms): ${JSON.stringify(host?.timings ?? {})}`,
		);
	}
}, 60000);

describe('Media Gateway Trigger in a real n8n', () => {
	test('each final callback starts exactly one execution with the normalised item, on the right branch', async () => {
		const image = imageCallback('img-e2e-success');
		const imageFailed = imageCallback('img-e2e-failure', {
			status: 'FAILURE',
			imageUrl: '',
			progress: '45%',
			failReason: 'Prompt rejected by the safety filter',
			finishTime: 0,
		});
		const video = {
			id: 'vid-e2e-succeed',
			status: 'succeed',
			type: 'video',
			output: { video_url: 'https://cdn.example.com/v/1.mp4', cover_url: 'https://cdn.example.com/v/1.png', duration: 5.5 },
			created_at: 1763700000,
			updated_at: 1763700042,
		};
		const music = {
			id: 'mus-e2e-complete',
			status: 'complete',
			output: { audio_url: 'https://cdn.example.com/m/1.mp3', title: 'Night Drive', duration: 184 },
		};
		const before = await triggerExecutions();
		const answers = [];
		for (const body of [image, imageFailed, video, music]) answers.push(await post(urlWithToken(), body));
		for (const answer of answers) {
			expect(answer.status).toBe(200);
			expect(answer.json).toEqual({ received: true });
			expect(answer.ms).toBeLessThan(ANSWER_BUDGET_MS);
		}

		const ids = [image.id, imageFailed.id, video.id, music.id];
		const list = await waitForTaskExecutions(ids);
		expect(list).toHaveLength(before.length + 4);
		const byId = {};
		for (const id of ids) {
			const mine = executionsOf(list, id);
			expect(mine).toHaveLength(1);
			expect(mine[0]).toMatchObject({ workflowId: TRIGGER_WF, mode: 'webhook', status: 'success', finished: true });
			byId[id] = mine[0];
		}

		const none = { coverUrl: null, title: null, duration: null, createdAt: null, updatedAt: null };
		expect(triggerItem(byId[image.id])).toEqual({
			kind: 'image',
			taskId: image.id,
			status: 'SUCCESS',
			state: 'succeeded',
			progress: 100,
			resultUrl: image.imageUrl,
			failReason: null,
			submittedAt: '2025-11-21T04:40:00.000Z',
			startedAt: '2025-11-21T04:40:01.500Z',
			finishedAt: '2025-11-21T04:40:09.250Z',
			...none,
			payload: image,
		});
		expect(triggerItem(byId[imageFailed.id])).toEqual({
			kind: 'image',
			taskId: imageFailed.id,
			status: 'FAILURE',
			state: 'failed',
			progress: 45,
			resultUrl: null,
			failReason: 'Prompt rejected by the safety filter',
			submittedAt: '2025-11-21T04:40:00.000Z',
			startedAt: '2025-11-21T04:40:01.500Z',
			finishedAt: null,
			...none,
			payload: imageFailed,
		});
		expect(triggerItem(byId[video.id])).toEqual({
			kind: 'video',
			taskId: video.id,
			status: 'succeed',
			state: 'succeeded',
			progress: 100,
			resultUrl: video.output.video_url,
			coverUrl: video.output.cover_url,
			title: null,
			duration: 5.5,
			failReason: null,
			submittedAt: null,
			startedAt: null,
			finishedAt: null,
			createdAt: '2025-11-21T04:40:00.000Z',
			updatedAt: '2025-11-21T04:40:42.000Z',
			payload: video,
		});
		expect(triggerItem(byId[music.id])).toMatchObject({
			kind: 'music',
			taskId: music.id,
			status: 'complete',
			state: 'succeeded',
			progress: 100,
			resultUrl: music.output.audio_url,
			title: 'Night Drive',
			duration: 184,
			failReason: null,
			payload: music,
		});

		// The If node sent successes one way and the failure the other; the Set nodes show what each got.
		for (const [id, resultUrl] of [
			[image.id, image.imageUrl],
			[video.id, video.output.video_url],
			[music.id, music.output.audio_url],
		]) {
			expect(byId[id].runData['On success'][0].items.map((i) => i.json)).toEqual([{ taskId: id, resultUrl }]);
			expect(byId[id].runData['On failure']).toBeUndefined();
		}
		expect(byId[imageFailed.id].runData['On failure'][0].items.map((i) => i.json)).toEqual([
			{ taskId: imageFailed.id, failReason: 'Prompt rejected by the safety filter' },
		]);
		expect(byId[imageFailed.id].runData['On success']).toBeUndefined();
	});

	test('progress callbacks are answered 200 and start nothing (Final Statuses Only)', async () => {
		const before = await triggerExecutions();
		const progress = [
			imageCallback('img-e2e-progress', { status: 'IN_PROGRESS', progress: '40%', imageUrl: '', finishTime: 0 }),
			imageCallback('img-e2e-queued', { status: 'NOT_START', progress: '0%', imageUrl: '', startTime: 0, finishTime: 0 }),
			{ id: 'vid-e2e-processing', status: 'processing', type: 'video', output: { video_url: '', cover_url: '', duration: 0 } },
		];
		for (const body of progress) {
			const answer = await post(urlWithToken(), body);
			expect(answer.status).toBe(200);
			expect(answer.json).toEqual({ received: true, ignored: 'status is not final' });
			expect(answer.ms).toBeLessThan(ANSWER_BUDGET_MS);
		}
		await expectNoNewExecutions(before);
	});

	test('a callback the gateway retries after a late answer, and a repeated POST, start it only once', async () => {
		// A relay between the gateway and n8n that holds n8n's first answer past the gateway's answer limit,
		// as a slow network would: n8n has accepted the callback, the gateway counts it as failed and retries.
		const upstream = [];
		const relay = http.createServer(async (req, res) => {
			const chunks = [];
			for await (const chunk of req) chunks.push(chunk);
			const response = await fetch(`${host.url}${req.url}`, {
				method: 'POST',
				headers: { 'content-type': req.headers['content-type'] },
				body: Buffer.concat(chunks),
			});
			const text = await response.text();
			upstream.push({ status: response.status, body: text });
			if (upstream.length === 1) await sleep(1000); // the limit is 5 s × 0.1 = 500 ms
			res.on('error', () => undefined);
			if (!res.destroyed) res.writeHead(response.status, { 'content-type': 'application/json' }).end(text);
		});
		await new Promise((resolve) => relay.listen(0, '127.0.0.1', resolve));
		const relayUrl = `http://127.0.0.1:${relay.address().port}${new URL(urlWithToken()).pathname}?token=${TOKEN}`;
		const before = await triggerExecutions();
		const body = imageCallback('img-e2e-retried');
		let attempts;
		try {
			attempts = await retrySim.sendCallback(relayUrl, body);
		} finally {
			await new Promise((resolve) => relay.close(resolve));
		}

		// The gateway saw a timeout, retried after 10 s × 0.1, and got its 200 then.
		expect(attempts[0]).toMatchObject({ attempt: 1, status: 'timeout' });
		expect(attempts.length).toBeGreaterThanOrEqual(2);
		expect(attempts[attempts.length - 1].status).toBe(200);
		// n8n accepted the first delivery and called every later one a duplicate.
		expect(upstream.length).toBe(attempts.length);
		expect(JSON.parse(upstream[0].body)).toEqual({ received: true });
		for (const later of upstream.slice(1)) {
			expect(later.status).toBe(200);
			expect(JSON.parse(later.body)).toEqual({ received: true, ignored: 'duplicate' });
		}

		// The same callback again, straight to n8n.
		const repeated = await post(urlWithToken(), body);
		expect(repeated.status).toBe(200);
		expect(repeated.json).toEqual({ received: true, ignored: 'duplicate' });
		expect(repeated.ms).toBeLessThan(ANSWER_BUDGET_MS);

		const list = await waitForTaskExecutions([body.id]);
		expect(executionsOf(list, body.id)).toHaveLength(1);
		expect(list).toHaveLength(before.length + 1);
	});

	test('the same callback sent five times at once starts one execution', async () => {
		const before = await triggerExecutions();
		const body = imageCallback('img-e2e-simultaneous');
		const answers = await Promise.all(Array.from({ length: 5 }, () => post(urlWithToken(), body)));
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
		const bodies = answers.map((a) => JSON.stringify(a.json)).sort();
		expect(bodies).toEqual([
			...Array(4).fill(JSON.stringify({ received: true, ignored: 'duplicate' })),
			JSON.stringify({ received: true }),
		]);
		const list = await waitForTaskExecutions([body.id]);
		expect(executionsOf(list, body.id)).toHaveLength(1);
		expect(list).toHaveLength(before.length + 1);
	});

	test('a missing or wrong secret gets 401 and starts nothing', async () => {
		const before = await triggerExecutions();
		const body = imageCallback('img-e2e-unauthorised');
		const cases = [
			[productionUrl, 'missing callback token'],
			[urlWithToken('wrong-token'), 'invalid callback token'],
			[urlWithToken(`${TOKEN}x`), 'invalid callback token'],
			[urlWithToken(''), 'invalid callback token'],
			[`${productionUrl}?Token=${TOKEN}`, 'missing callback token'],
			[`${productionUrl}?token=${TOKEN}&token=${TOKEN}`, 'invalid callback token'],
		];
		for (const [url, error] of cases) {
			const answer = await post(url, body, { label: 'rejection' });
			expect({ url, status: answer.status, body: answer.json }).toEqual({ url, status: 401, body: { error } });
		}
		await expectNoNewExecutions(before);
	});

	test('malformed bodies get 400 (or n8n’s own error for unparseable JSON) and start nothing', async () => {
		const before = await triggerExecutions();
		const deep = `{"id":"img-e2e-deep","status":"SUCCESS","nest":${'{"a":'.repeat(10000)}1${'}'.repeat(10000)}}`;
		const junkFields = {};
		for (let i = 0; i < 250000; i++) junkFields[`junk${i}`] = 'x'.repeat(8);
		const junk = JSON.stringify({ ...imageCallback('img-e2e-junk'), ...junkFields });
		expect(junk.length).toBeGreaterThan(5 * 1024 * 1024);

		const cases = [
			['JSON string', '"SUCCESS"', /body must be a JSON object/],
			['JSON number', '42', /body must be a JSON object/],
			['JSON array', JSON.stringify([imageCallback('img-e2e-in-array')]), /body must be a JSON object/],
			['JSON null', 'null', /body must be a JSON object/],
			['empty body', '', /body must be a JSON object/],
			['missing id', JSON.stringify({ ...imageCallback('x'), id: undefined }), /id: the task id is missing/],
			['numeric id', JSON.stringify({ ...imageCallback('x'), id: 42 }), /^id: must be a string/],
			['blank id', JSON.stringify({ ...imageCallback('x'), id: '   ' }), /^id: must be a non-empty string/],
			['numeric status', JSON.stringify(imageCallback('img-e2e-status', { status: 7 })), /^status: must be a string/],
			['string time', JSON.stringify(imageCallback('img-e2e-time', { submitTime: 'yesterday' })), /^submitTime: must be a number/],
			['numeric progress', JSON.stringify(imageCallback('img-e2e-prog', { progress: 50 })), /^progress: must be a string/],
			[
				'video duration text',
				JSON.stringify({ id: 'vid-e2e-types', status: 'succeed', type: 'video', output: { video_url: 'u', duration: 'long' } }),
				/^output\.duration: must be a number/,
			],
			['unknown shape', JSON.stringify({ id: 'x-e2e-shape', status: 'done', colour: 'blue' }), /unrecognised callback shape/],
			['__proto__ key', `{"id":"img-e2e-proto","status":"SUCCESS","__proto__":{"polluted":true}}`, /forbidden key "__proto__"/],
			[
				'nested constructor key',
				`{"id":"img-e2e-ctor","status":"SUCCESS","meta":{"a":[{"constructor":{"prototype":1}}]}}`,
				/forbidden key "constructor"/,
			],
			['10000 levels deep', deep, /body is nested deeper than 32 levels/],
			['5 MB of junk fields', junk, /more than 10000 values/],
			['text body', 'id=img-e2e-text&status=SUCCESS', /body must be a JSON object/, 'text/plain'],
		];
		const seen = [];
		for (const [name, body, , contentType] of cases) {
			const answer = await post(urlWithToken(), body, { raw: true, label: 'rejection', contentType });
			seen.push({ name, status: answer.status, error: answer.json?.error, fast: answer.ms < 5000 });
		}
		// All compared at once, so one run shows every case that went wrong.
		expect(seen).toEqual(
			cases.map(([name, , reason]) => ({ name, status: 400, error: expect.stringMatching(reason), fast: true })),
		);

		// Text that is not JSON at all never reaches the node: n8n's body parser refuses it first.
		for (const text of ['{"id":"img-e2e-broken","status":', '{id: unquoted}', '\u0000\u0001garbage']) {
			const answer = await post(urlWithToken(), text, { raw: true, label: 'rejection' });
			expect({ text, ok: answer.status >= 200 && answer.status < 300 }).toEqual({ text, ok: false });
			expect(answer.status).toBeGreaterThanOrEqual(400);
		}
		await expectNoNewExecutions(before);
	});

	// n8n 1.123 never writes the trigger's static data to its database (no key after seconds, no error
	// logged), so only the in-process duplicate memory works there (README, compatibility).
	const onN8n2 = N8nHost.DEFAULT_LINE === '2.x' ? test : test.skip;
	onN8n2('an accepted callback is remembered in the database (static data), not only in this process', async () => {
		const storedKeys = async () => {
			const [row] = await host.query('SELECT "staticData" FROM workflow_entity WHERE id = ?', [TRIGGER_WF]);
			const data = typeof row.staticData === 'string' ? JSON.parse(row.staticData) : row.staticData;
			return Object.keys(data?.['node:Media Gateway Trigger']?.dedupe?.entries ?? {});
		};
		const before = await storedKeys();
		const answer = await post(urlWithToken(), imageCallback('img-e2e-persisted'));
		expect(answer.json).toEqual({ received: true });
		await waitForTaskExecutions(['img-e2e-persisted']);
		const after = await storedKeys();
		// n8n saves static data when the answer goes out; a new key is there once the execution exists.
		expect(after.length).toBe(before.length + 1);
		expect(after).toEqual(expect.arrayContaining(before));
	});

	test('fuzz: a few hundred generated malformed bodies are all refused, and n8n keeps working', async () => {
		const SEED = 20261121;
		const random = prng(SEED);
		const pick = (list) => list[Math.floor(random() * list.length)];
		const word = () => random().toString(36).slice(2, 3 + Math.floor(random() * 10));
		const junkValue = () =>
			pick([() => Math.floor(random() * 1e6), () => -1, () => 1.5, () => true, () => [], () => ({}), () => word()])();
		const validBody = (i) =>
			pick([
				() => imageCallback(`fz-img-${i}`, { status: pick(['SUCCESS', 'FAILURE', 'IN_PROGRESS']) }),
				() => ({
					id: `fz-vid-${i}`,
					status: 'succeed',
					type: 'video',
					output: { video_url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/c.png', duration: 5 },
					created_at: 1763700000,
					updated_at: 1763700042,
				}),
				() => ({ id: `fz-mus-${i}`, status: 'complete', output: { audio_url: 'https://cdn.example.com/a.mp3', title: 't', duration: 3 } }),
			])();
		// Each mutation makes a valid callback invalid in one way the node must refuse with 400.
		const mutations = [
			(b) => {
				delete b.id;
				return b;
			},
			(b) => ({ ...b, id: pick([null, 0, 17, true, [], {}, '', ' \t ', 'x'.repeat(1025)]) }),
			(b) => ({ ...b, status: pick([null, 1, false, [], { s: 'SUCCESS' }]) }),
			(b) =>
				b.type === 'video'
					? { ...b, created_at: pick(['now', -5, 1.25, {}, true]) }
					: b.output
						? { ...b, output: { ...b.output, duration: pick(['3', -1, {}, [], true]) } }
						: { ...b, [pick(['submitTime', 'startTime', 'finishTime'])]: pick(['then', -1, 2.5, {}, [], true]) },
			(b) =>
				b.output
					? { ...b, output: pick(['https://cdn.example.com/x', 5, true, [1]]) }
					: { ...b, [pick(['imageUrl', 'progress', 'prompt', 'failReason', 'action'])]: pick([5, true, {}, [1]]) },
			(b) => {
				// a forbidden key somewhere down an extra field
				let text = `{"${pick(['__proto__', 'constructor', 'prototype'])}":${JSON.stringify(junkValue())}}`;
				const depth = Math.floor(random() * 6);
				for (let d = 0; d < depth; d++) text = random() < 0.5 ? `{"k${d}":${text}}` : `[${text}]`;
				return { __raw: JSON.stringify(b).replace(/}$/, `,"extra":${text}}`) };
			},
			(b) => {
				let nested = '1';
				for (let d = 0; d < 33 + Math.floor(random() * 200); d++) nested = random() < 0.5 ? `{"d":${nested}}` : `[${nested}]`;
				return { __raw: JSON.stringify(b).replace(/}$/, `,"nest":${nested}}`) };
			},
			(b) => ({ __raw: JSON.stringify(pick([[b], b.id, 7, true, [1, 2, 3]])) }),
			() => ({ id: `fz-shape-${word()}`, status: pick(['done', 'ok', 'weird', '']), [word() || 'z']: junkValue() }),
		];
		const cases = [];
		for (let i = 0; i < 300; i++) {
			const roll = random();
			if (roll < 0.08) {
				// not JSON at all: cut a valid body short, or bytes
				const text = JSON.stringify(validBody(i));
				cases.push({ kind: 'unparseable', raw: random() < 0.5 ? text.slice(0, Math.floor(random() * (text.length - 1))) || '{' : `{${word()}:` });
				continue;
			}
			const mutated = pick(mutations)(validBody(i));
			const raw = mutated.__raw ?? JSON.stringify(mutated);
			if (roll < 0.2) cases.push({ kind: 'unauthorised', raw, token: pick([undefined, 'nope', `${TOKEN}1`, TOKEN.slice(1)]) });
			else cases.push({ kind: 'malformed', raw });
		}

		const before = await triggerExecutions();
		const failures = [];
		const statuses = {};
		// A few at a time, as a gateway with several workers would send them.
		let next = 0;
		await Promise.all(
			Array.from({ length: 6 }, async () => {
				while (next < cases.length) {
					const c = cases[next++];
					const url = c.kind === 'unauthorised' ? (c.token === undefined ? productionUrl : urlWithToken(c.token)) : urlWithToken();
					const answer = await post(url, c.raw, { raw: true, label: 'rejection' });
					statuses[`${c.kind} ${answer.status}`] = (statuses[`${c.kind} ${answer.status}`] ?? 0) + 1;
					const ok =
						c.kind === 'unauthorised'
							? answer.status === 401
							: c.kind === 'malformed'
								? answer.status === 400 && typeof answer.json?.error === 'string'
								: answer.status >= 400;
					if (!ok) failures.push({ ...c, raw: c.raw.slice(0, 300), status: answer.status, answer: answer.text.slice(0, 200) });
				}
			}),
		);
		console.log(`fuzz (seed ${SEED}): ${cases.length} bodies, answers ${JSON.stringify(statuses)}`);
		expect(failures).toEqual([]);
		await expectNoNewExecutions(before);

		// Still healthy, and still accepting real callbacks.
		expect((await fetch(`${host.url}/healthz`)).status).toBe(200);
		const after = await post(urlWithToken(), imageCallback('img-e2e-after-fuzz'));
		expect(after).toMatchObject({ status: 200, json: { received: true } });
		const list = await waitForTaskExecutions(['img-e2e-after-fuzz']);
		expect(list).toHaveLength(before.length + 1);
	});

	/** Runs a video-with-callback workflow with the CLI; the simulator then calls the trigger back. */
	async function renderAndAwaitTrigger(workflowId) {
		const before = await triggerExecutions();
		const result = await host.execute(workflowId);
		expect(result.exitCode).toBe(0);
		expect(result.status).toBe('success');
		const [created] = result.data['Create video'][0].items;
		expect(created.json).toMatchObject({ status: 'processing', state: 'running' });
		const taskId = created.json.taskId;
		expect(typeof taskId).toBe('string');
		// The node sent the trigger's production URL, secret included, as notifyHook.
		expect(sim.tasks.get(taskId).notifyHook).toBe(urlWithToken());

		const list = await waitForTaskExecutions([taskId]);
		const mine = executionsOf(list, taskId);
		expect(mine).toHaveLength(1);
		expect(list).toHaveLength(before.length + 1);
		// The gateway's view: 'processing' and the final callback were both answered 200 at the first try.
		const log = sim.callbackLog.filter((entry) => entry.payload.id === taskId);
		expect(log.map((e) => [e.payload.status, e.attempt, e.status])).toEqual([
			['processing', 1, 200],
			[expect.stringMatching(/^(succeed|failed)$/), 1, 200],
		]);
		for (const entry of log) expect(entry.elapsedMs).toBeLessThan(ANSWER_BUDGET_MS);
		return { taskId, execution: mine[0] };
	}

	test('full flow: a video created with the trigger as Callback URL ends on the "On success" branch', async () => {
		const { taskId, execution } = await renderAndAwaitTrigger(videoExample.id);
		const video = sim.tasks.get(taskId).video;
		expect(triggerItem(execution)).toMatchObject({
			kind: 'video',
			taskId,
			status: 'succeed',
			state: 'succeeded',
			resultUrl: video.url,
			duration: 5,
			failReason: null,
		});
		expect(execution.status).toBe('success');
		expect(execution.runData['On success'][0].items.map((i) => i.json)).toEqual([{ taskId, resultUrl: video.url }]);
		expect(execution.runData['On failure']).toBeUndefined();
	});

	test('full flow: a failing video ends on the "On failure" branch with the gateway’s reason', async () => {
		const { taskId, execution } = await renderAndAwaitTrigger(VIDEO_FAIL_WF);
		expect(triggerItem(execution)).toMatchObject({
			kind: 'video',
			taskId,
			status: 'failed',
			state: 'failed',
			resultUrl: null,
			failReason: FAIL_MESSAGE,
		});
		expect(execution.status).toBe('success');
		expect(execution.runData['On failure'][0].items.map((i) => i.json)).toEqual([{ taskId, failReason: FAIL_MESSAGE }]);
		expect(execution.runData['On success']).toBeUndefined();
	});

	test('n8n never printed the API key', () => {
		expect(host.redactions).toBe(0);
		expect(host.logs()).not.toContain(API_KEY);
	});
});
