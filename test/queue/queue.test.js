'use strict';
/**
 * The package in n8n's queue mode, for real: PostgreSQL and Redis from Debian's packages, one main process,
 * one `n8n worker` and two `n8n webhook` processes behind one round-robin URL (dev/n8n-host/queue-cluster),
 * each with the package installed the way n8n installs community packages. Workflows are started the way
 * production traffic starts them (a webhook processor receives, a worker executes); every result is read
 * from n8n's own execution records in PostgreSQL, binary data through the main process's REST API.
 * Needs `bash dev/n8n-host/install.sh`, `bash dev/n8n-host/install-services.sh` and a built dist/. Run:
 *   npm run test:queue
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { N8nHost } = require('../../dev/n8n-host/host');
const { QueueCluster } = require('../../dev/n8n-host/queue-cluster');
const { startSimulator } = require('../../dev/simulator');
const { pngFor, mp4Bytes } = require('../../dev/simulator/assets');
const {
	REPO,
	example,
	localized,
	webhookStarted,
	appendNode,
	hashNode,
	imageCallback,
	videoCallback,
	musicCallback,
	postJson,
	mapLimit,
	sleep,
	setUpOwner,
	binaryFromMain,
} = require('./support');

const API_KEY = `queue-key-${crypto.randomBytes(8).toString('hex')}`;
const sha256 = (buffer) => crypto.createHash('sha256').update(buffer).digest('hex');
const dataUri = (png) => `data:image/png;base64,${png.toString('base64')}`;

// ---- workflows ----
const actions = {
	image: appendNode(
		webhookStarted('image-generate-download', {
			id: 'mgQueueImageGen',
			path: 'queue-image',
			webhookId: crypto.randomUUID(),
		}),
		'Generate image',
		hashNode('Hash image', 'data'),
	),
	edit: webhookStarted('image-edit-from-binary', {
		id: 'mgQueueImageEdit',
		path: 'queue-edit',
		webhookId: crypto.randomUUID(),
	}),
	video: webhookStarted('video-pro-wait', {
		id: 'mgQueueVideoPoll',
		path: 'queue-video',
		webhookId: crypto.randomUUID(),
	}),
	storyboard: webhookStarted('storyboard-three-scenes', {
		id: 'mgQueueStoryboard',
		path: 'queue-storyboard',
		webhookId: crypto.randomUUID(),
	}),
	character: webhookStarted('character-create', {
		id: 'mgQueueCharacter',
		path: 'queue-character',
		webhookId: crypto.randomUUID(),
	}),
};

const triggerExample = example('callback-trigger');
const triggerNode = triggerExample.nodes.find(
	(n) => n.type === 'n8n-nodes-media-gateway.mediaGatewayTrigger',
);
// The example ships without a secret; this run makes its own. Its callbacks here are invented (no task on
// the simulator), so the gateway is not asked to confirm video callbacks (test/e2e/trigger.test.js covers that).
const TOKEN = crypto.randomBytes(24).toString('base64url');
triggerNode.parameters.secretToken = TOKEN;
triggerNode.parameters.confirmVideoCallbacks = false;
const TRIGGER_PATH = `${triggerNode.webhookId}/webhook`;

/** Wait for Callback, with the video downloaded on resume and hashed by n8n's Crypto node after it. */
const waitWorkflow = (() => {
	const wf = example('video-wait-for-callback');
	const video = wf.nodes.find((n) => n.name === 'Render video');
	video.parameters.options = { download: true, binaryPropertyName: 'video' };
	wf.nodes.push(hashNode('Hash video', 'video', [900, 500]));
	wf.connections['Render video'].main[0].push({ node: 'Hash video', type: 'main', index: 0 });
	return wf;
})();
const WAIT_PATH = waitWorkflow.nodes.find((n) => n.type === 'n8n-nodes-base.webhook').parameters
	.path;

/** The same with a 3 s wait limit, against a gateway whose videos take 10 minutes: main's wait tracker ends it. */
const limitWorkflow = (() => {
	const wf = JSON.parse(JSON.stringify(waitWorkflow));
	wf.id = `${waitWorkflow.id}Limit`;
	wf.name = `${waitWorkflow.name} (wait limit)`;
	const webhook = wf.nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
	webhook.webhookId = crypto.randomUUID();
	webhook.parameters.path = `${WAIT_PATH}-limit`;
	const video = wf.nodes.find((n) => n.name === 'Render video');
	video.parameters.callbackWaitLimitMinutes = 0.05;
	video.credentials = { mediaGatewayApi: { id: 'mediaGatewaySlow', name: 'Media Gateway (slow)' } };
	return wf;
})();

let sim;
let slowSim;
let cluster;
let tarballDir;
let cookie;
/** Started right after start-up, checked last, so that the wait tracker's minute overlaps the other tests. */
let limitRun;

beforeAll(async () => {
	sim = await startSimulator({
		apiKey: API_KEY,
		port: 0,
		videoCompleteAfterMs: 4000,
		proCompleteAfterMs: 3000,
	});
	slowSim = await startSimulator({ apiKey: API_KEY, port: 0, videoCompleteAfterMs: 10 * 60_000 });
	const tarball = await N8nHost.packPackage(REPO);
	tarballDir = path.dirname(tarball);
	cluster = new QueueCluster({ tarball, workers: 1, webhooks: 2 });
	await cluster.prepare();
	await cluster.main.importCredentials([
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
	const trigger = localized(triggerExample, cluster.webhookBaseUrl);
	const workflows = [...Object.values(actions), trigger, waitWorkflow, limitWorkflow];
	await cluster.main.importWorkflows(workflows);
	await cluster.main.publish(workflows.map((w) => w.id));
	await cluster.start();
	cookie = await setUpOwner(cluster.main.url);
	const startedAt = Date.now();
	const started = await postJson(cluster.webhookUrl(`${WAIT_PATH}-limit`), {
		prompt: 'A paper boat, queue-mode wait limit',
	});
	limitRun = { startedAt, answer: started };
}, 420000);

afterAll(async () => {
	if (cluster) await cluster.stop();
	if (sim) await sim.close();
	if (slowSim) await slowSim.close();
	if (tarballDir) fs.rmSync(tarballDir, { recursive: true, force: true });
	console.log(
		`queue cluster timings (ms): ${JSON.stringify(cluster?.timings ?? {})}; balancer counts ${JSON.stringify(cluster?.balancer?.counts)}`,
	);
}, 90000);

// ---- helpers reading n8n's own records ----

async function executionsOf(workflowId) {
	return cluster.main.executions({ workflowId });
}

/** Ids of executions a process's log says it ran (worker) or put on the queue (webhook processor). */
function loggedIds(names, pattern) {
	const ids = [];
	for (const name of names) {
		for (const entry of cluster.entriesOf(name)) {
			const match = pattern.exec(entry.message);
			if (match) ids.push(match[1]);
		}
	}
	return ids;
}
const workerNames = () => cluster.workers.map((h) => h.name);
const webhookNames = () => cluster.webhooks.map((h) => h.name);
const startedOnWorker = () => loggedIds(workerNames(), /^Worker started execution (\d+) /);
const enqueuedByWebhookProcess = () => loggedIds(webhookNames(), /^Enqueued execution (\d+) /);

async function waitForFinished(workflowId, count, { timeoutMs = 90000 } = {}) {
	return cluster.main.waitForExecutions(
		(list) =>
			list.length >= count &&
			list.every((e) => ['success', 'error', 'crashed', 'canceled'].includes(e.status)),
		{ workflowId, timeoutMs, intervalMs: 300 },
	);
}

function firstItems(execution, nodeName) {
	return execution.runData[nodeName]?.[0]?.items ?? [];
}

// ---- the trigger's URL, and a barrier for "nothing more will start" ----

const triggerUrl = (base = cluster.webhookUrl(TRIGGER_PATH), token = TOKEN) =>
	`${base}?token=${encodeURIComponent(token)}`;
const triggerWf = () => triggerExample.id;
const taskIdOf = (execution) => firstItems(execution, 'Media Gateway Trigger')[0]?.json?.taskId;

const BARRIER = 'q-barrier-';
let barriers = 0;
const withoutBarriers = (list) => list.filter((e) => !String(taskIdOf(e)).startsWith(BARRIER));

/**
 * A point after which nothing sent before can still start an execution: n8n answers an accepted
 * callback only once its job is on the queue (and its execution in the database), and a refused
 * one without starting anything. So once one more callback has been answered 200 and its execution
 * is in the database, every earlier request's execution is too, or there is none; the barrier waits until
 * all of them have run. (Replaces fixed pauses "to give n8n time".)
 */
async function barrier() {
	const id = `${BARRIER}${++barriers}`;
	const answer = await postJson(triggerUrl(), imageCallback(id));
	expect({ id, ...answer.json }).toEqual({ id, received: true });
	await cluster.main.waitForExecutions((list) => list.some((e) => taskIdOf(e) === id), {
		workflowId: triggerWf(),
		timeoutMs: 90000,
		intervalMs: 300,
	});
}

/** Executions of the trigger workflow, barriers left out, once everything sent before has landed. */
async function settledExecutions() {
	await barrier();
	return withoutBarriers(await executionsOf(triggerWf()));
}

describe('n8n queue mode: main, worker, two webhook processors on PostgreSQL and Redis', () => {
	test('every process loaded the package from its own user folder', () => {
		for (const host of cluster.hosts) {
			const loaded = host
				.logEntries()
				.find((e) => e.message === 'Loaded all credentials and nodes from n8n-nodes-media-gateway');
			const { nodes, credentials } = loaded?.metadata ?? {};
			expect({ process: host.name, nodes, credentials }).toEqual({
				process: host.name,
				nodes: 5,
				credentials: 1,
			});
			expect(host.package.dir.startsWith(host.userFolder)).toBe(true);
		}
		expect(new Set(cluster.hosts.map((h) => h.userFolder)).size).toBe(cluster.hosts.length);
	});

	test('action nodes run on a worker; binary data they store is read by the next node and by main', async () => {
		const requestsBefore = sim.requests.length;
		const started = await Promise.all(
			Object.values(actions).map((wf) =>
				postJson(cluster.webhookUrl(wf.nodes.find((n) => n.name === 'Start').parameters.path), {}),
			),
		);
		for (const answer of started)
			expect(answer).toMatchObject({ status: 200, json: { message: 'Workflow was started' } });

		const done = {};
		for (const [key, wf] of Object.entries(actions)) {
			const [execution] = await waitForFinished(wf.id, 1);
			expect({ key, status: execution.status, mode: execution.mode }).toEqual({
				key,
				status: 'success',
				mode: 'webhook',
			});
			done[key] = execution;
		}
		const requests = sim.requests.slice(requestsBefore);
		const ran = startedOnWorker();
		const enqueued = enqueuedByWebhookProcess();
		for (const execution of Object.values(done)) {
			// Received by a webhook processor, put on the queue, executed by the worker.
			expect(enqueued).toContain(execution.id);
			expect(ran).toContain(execution.id);
		}
		// Main executes nothing in queue mode.
		expect(cluster.main.logEntries().some((e) => /^Worker started execution/.test(e.message))).toBe(
			false,
		);

		// Image generate + download: three PNGs in the database store, identical for main and for n8n's Crypto node.
		const images = firstItems(done.image, 'Generate image');
		expect(images).toHaveLength(3);
		const hashes = firstItems(done.image, 'Hash image');
		for (const [index, item] of images.entries()) {
			expect(item.binary.data).toMatchObject({
				mimeType: 'image/png',
				fileName: `${item.json.seed}.png`,
			});
			expect(item.binary.data.id).toMatch(/^database:/);
			const bytes = await binaryFromMain(cluster.main.url, cookie, item.binary.data);
			expect(bytes.equals(pngFor(String(item.json.seed)))).toBe(true);
			expect(hashes[index].json.sha256).toBe(sha256(bytes));
		}

		// Edit reads the PNG the previous node stored: it went to the gateway as a data URI.
		const [generated] = firstItems(done.edit, 'Generate image');
		const [edited] = firstItems(done.edit, 'Edit image');
		const original = await binaryFromMain(cluster.main.url, cookie, generated.binary.data);
		const editRequest = requests.find((r) => r.path === '/imgmodel/v1/imgmodel-v3/edit');
		expect(editRequest.body.image).toBe(dataUri(original));
		expect(
			(await binaryFromMain(cluster.main.url, cookie, edited.binary.data)).equals(
				pngFor(String(edited.json.seed)),
			),
		).toBe(true);

		// Video create with polling, downloaded.
		const [video] = firstItems(done.video, 'Create pro video');
		expect(video.json).toMatchObject({ state: 'succeeded', status: 'completed' });
		expect(
			requests.find(
				(r) => r.method === 'POST' && r.path === '/v1/videos' && r.body.model === 'vidmodel-pro',
			),
		).toBeDefined();
		expect(video.binary.data.id).toMatch(/^database:/);
		expect(
			(await binaryFromMain(cluster.main.url, cookie, video.binary.data)).equals(mp4Bytes()),
		).toBe(true);
		const polls = requests.filter(
			(r) => r.method === 'GET' && r.path === `/v1/videos/${video.json.taskId}`,
		);
		expect(polls.length).toBeGreaterThanOrEqual(1);

		// Storyboard and character.
		const [storyboard] = firstItems(done.storyboard, 'Create storyboard video');
		expect(storyboard.json).toMatchObject({ state: 'succeeded', video: { duration: 13 } });
		const [character] = firstItems(done.character, 'Create character');
		expect(character.json).toMatchObject({
			id: expect.stringMatching(/^char_/),
			name: 'Captain Mira',
		});
	});

	describe('Media Gateway Trigger on the webhook processors', () => {
		/** Waits for `taskIds` to have finished executions and for everything sent before to land. */
		async function executionsFor(taskIds) {
			await cluster.main.waitForExecutions(
				(list) =>
					taskIds.every((id) => list.some((e) => taskIdOf(e) === id && e.status === 'success')),
				{ workflowId: triggerWf(), timeoutMs: 90000, intervalMs: 300 },
			);
			return settledExecutions();
		}

		const count = (list, id) => list.filter((e) => taskIdOf(e) === id).length;

		/** How many keys the trigger's duplicate memory holds in n8n's database (workflow static data). */
		async function storedKeyCount() {
			const [row] = await cluster.main.query(
				'SELECT "staticData" FROM workflow_entity WHERE id = ?',
				[triggerWf()],
			);
			const data = typeof row.staticData === 'string' ? JSON.parse(row.staticData) : row.staticData;
			return Object.keys(data?.['node:Media Gateway Trigger']?.dedupe?.entries ?? {}).length;
		}

		async function waitFor(check, what, timeoutMs = 60000) {
			const t0 = Date.now();
			while (!(await check())) {
				if (Date.now() - t0 > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
				await sleep(50);
			}
		}

		test('each distinct status change starts one execution on a worker; its retries through either processor start none', async () => {
			const bodies = [
				imageCallback('q-img-1'),
				imageCallback('q-img-2', {
					status: 'FAILURE',
					imageUrl: '',
					progress: '40%',
					failReason: 'Rejected',
					finishTime: 0,
				}),
				videoCallback('q-vid-1'),
				videoCallback('q-vid-2'),
				musicCallback('q-mus-1'),
				imageCallback('q-img-3'),
				videoCallback('q-vid-3'),
			];
			const counts = [...cluster.balancer.counts];
			// First deliveries through the one URL, one at a time and not concurrent with each other: n8n
			// saves static data a few milliseconds after the answer has gone out, and a request that another
			// processor starts inside that window can drop the key (the concurrent case is the next test).
			// So each next callback waits until the previous key is in the database.
			const stored = await storedKeyCount();
			for (const [index, body] of bodies.entries()) {
				const answer = await postJson(triggerUrl(), body);
				expect(answer).toMatchObject({ status: 200, json: { received: true } });
				expect(answer.json.ignored).toBeUndefined();
				await waitFor(
					async () => (await storedKeyCount()) === stored + index + 1,
					`key of ${body.id} saved`,
				);
			}
			// Round-robin: both processors answered some.
			expect(cluster.balancer.counts.every((n, i) => n > counts[i])).toBe(true);
			const ids = bodies.map((b) => b.id);
			const list = await executionsFor(ids);
			for (const id of ids)
				expect({ id, executions: count(list, id) }).toEqual({ id, executions: 1 });
			const ran = startedOnWorker();
			for (const e of list.filter((x) => ids.includes(taskIdOf(x)))) expect(ran).toContain(e.id);

			// The gateway's retries (10 s and more later): each one to each processor directly.
			for (const host of cluster.webhooks) {
				for (const body of bodies) {
					const answer = await postJson(triggerUrl(host.webhookUrl(TRIGGER_PATH)), body);
					expect({ process: host.name, id: body.id, ...answer.json }).toEqual({
						process: host.name,
						id: body.id,
						received: true,
						ignored: 'duplicate',
					});
				}
			}
			expect((await settledExecutions()).map((e) => e.id)).toEqual(list.map((e) => e.id));
		});

		test('concurrent callbacks through both processors: every distinct one runs once; retries measured', async () => {
			const bodies = Array.from({ length: 40 }, (_, i) => videoCallback(`q-burst-${i}`));
			const first = await mapLimit(bodies, 10, (body) => postJson(triggerUrl(), body));
			expect(first.map((a) => a.status)).toEqual(bodies.map(() => 200));
			// A processor that sees a key for the first time accepts it; no distinct callback was suppressed.
			expect(first.filter((a) => a.json.ignored).length).toBe(0);
			const ids = bodies.map((b) => b.id);
			const afterFirst = await executionsFor(ids);
			for (const id of ids)
				expect({ id, executions: count(afterFirst, id) }).toEqual({ id, executions: 1 });

			const retries = await mapLimit(bodies, 10, (body) => postJson(triggerUrl(), body));
			expect(retries.map((a) => a.status)).toEqual(bodies.map(() => 200));
			const afterRetries = await settledExecutions();
			const doubled = ids.filter((id) => count(afterRetries, id) > 1);
			const accepted = retries.filter((a) => !a.json.ignored).length;
			// Every retry the trigger let through is one more execution, and no more than that.
			expect(afterRetries.length - afterFirst.length).toBe(accepted);
			console.log(
				`queue-mode dedupe, 2 webhook processors, 40 callbacks at 10 concurrent then their retries: ` +
					`${accepted} of 40 retries started a second execution (${doubled.join(', ') || 'none'})`,
			);
		});

		test('malformed and unauthorised callbacks are refused and start nothing', async () => {
			const before = withoutBarriers(await executionsOf(triggerWf())).map((e) => e.id);
			const url = cluster.webhookUrl(TRIGGER_PATH);
			const answers = [
				await postJson(url, imageCallback('q-no-token')),
				await postJson(triggerUrl(url, 'wrong-token'), imageCallback('q-bad-token')),
				await postJson(triggerUrl(), { ...imageCallback('x'), id: 42 }),
				await postJson(
					triggerUrl(),
					'{"id":"q-proto","status":"SUCCESS","__proto__":{"polluted":true}}',
					{ raw: true },
				),
				await postJson(triggerUrl(), { id: 'q-shape', status: 'done', colour: 'blue' }),
			];
			expect(answers.map((a) => a.status)).toEqual([401, 401, 400, 400, 400]);
			// Text that is not JSON never reaches the node: n8n's body parser refuses it.
			const broken = await postJson(triggerUrl(), '{"id":"q-broken","status":', { raw: true });
			expect(broken.status).toBeGreaterThanOrEqual(400);
			expect((await settledExecutions()).map((e) => e.id)).toEqual(before);
		});
	});

	test('Wait for Callback: parked in PostgreSQL, resumed through a webhook processor, finished on a worker', async () => {
		const before = new Set((await executionsOf(waitWorkflow.id)).map((e) => e.id));
		const started = await postJson(cluster.webhookUrl(WAIT_PATH), {
			prompt: 'A paper boat, queue mode',
		});
		expect(started).toMatchObject({ status: 200, json: { message: 'Workflow was started' } });
		const list = await cluster.main.waitForExecutions(
			(l) => l.some((e) => !before.has(e.id) && e.status === 'waiting'),
			{
				workflowId: waitWorkflow.id,
				timeoutMs: 60000,
				intervalMs: 200,
			},
		);
		const waiting = list.find((e) => !before.has(e.id));
		expect(Date.parse(waiting.waitTill) - Date.now()).toBeGreaterThan(50 * 60_000);
		const executionId = waiting.id;
		const task = [...sim.tasks.values()].find((t) =>
			String(t.notifyHook).includes(`/webhook-waiting/${executionId}?`),
		);
		// The worker built the resume URL from N8N_WEBHOOK_URL: the balancer in front of the processors.
		expect(task.notifyHook).toMatch(
			new RegExp(
				`^${cluster.webhookBaseUrl}/webhook-waiting/${executionId}\\?signature=[0-9a-f]{64}$`,
			),
		);

		const [done] = await cluster.main
			.waitForExecutions(
				(l) => l.some((e) => e.id === executionId && ['success', 'error'].includes(e.status)),
				{ workflowId: waitWorkflow.id, timeoutMs: 90000, intervalMs: 300 },
			)
			.then((l) => l.filter((e) => e.id === executionId));
		expect(done).toMatchObject({ status: 'success', finished: true, waitTill: null });
		const [item] = done.runData['Render video'].at(-1).items;
		expect(item.json).toMatchObject({ taskId: task.id, state: 'succeeded', status: 'completed' });
		expect(item.binary.video.id).toMatch(/^database:/);
		const bytes = await binaryFromMain(cluster.main.url, cookie, item.binary.video);
		expect(bytes.equals(mp4Bytes())).toBe(true);
		expect(firstItems(done, 'Hash video')[0].json.sha256).toBe(sha256(bytes));
		expect(firstItems(done, 'After render').map((i) => i.json)).toEqual([
			{ taskId: task.id, state: 'succeeded', videoUrl: task.video.url },
		]);
		// The worker ran it twice: up to the wait, and again after the resume.
		expect(startedOnWorker().filter((id) => id === executionId).length).toBeGreaterThanOrEqual(2);
		const finals = sim.callbackLog.filter(
			(e) => e.payload.id === task.id && e.payload.status === 'succeed',
		);
		expect(finals.some((e) => e.status === 200)).toBe(true);

		// The final callback again, after the resume: refused, nothing new starts.
		const all = (await cluster.main.executions()).map((e) => e.id);
		const duplicate = await postJson(task.notifyHook, finals[0].payload);
		expect(duplicate.status).toBe(409);
		await barrier();
		const barrierIds = new Set(
			(await executionsOf(triggerWf()))
				.filter((e) => String(taskIdOf(e)).startsWith(BARRIER))
				.map((e) => e.id),
		);
		expect(
			(await cluster.main.executions()).map((e) => e.id).filter((id) => !barrierIds.has(id)),
		).toEqual(all.filter((id) => !barrierIds.has(id)));
		expect((await executionsOf(waitWorkflow.id)).find((e) => e.id === executionId).status).toBe(
			'success',
		);
	});

	test('Wait for Callback: the wait limit is enforced by main and the error reaches the execution via a worker', async () => {
		expect(limitRun.answer).toMatchObject({
			status: 200,
			json: { message: 'Workflow was started' },
		});
		// n8n's wait tracker (main, leader only) looks for due executions once a minute.
		const [execution] = await cluster.main
			.waitForExecutions((l) => l.some((e) => ['success', 'error'].includes(e.status)), {
				workflowId: limitWorkflow.id,
				timeoutMs: Math.max(10000, 150000 - (Date.now() - limitRun.startedAt)),
				intervalMs: 500,
			})
			.then((l) => l.filter((e) => ['success', 'error'].includes(e.status)));
		const task = [...slowSim.tasks.values()].find((t) =>
			String(t.notifyHook).includes(`/webhook-waiting/${execution.id}?`),
		);
		expect(task.status).toBe('processing');
		const message = `Task ${task.id} sent no final callback within 3 s`;
		expect(execution.status).toBe('error');
		expect(execution.data.resultData.error.message).toBe(message);
		expect(execution.runData['After render']).toBeUndefined();
		// Main put the due execution back on the queue; a worker ran it (before the wait and after).
		expect(loggedIds(['main'], /^Enqueued execution (\d+) /)).toContain(execution.id);
		expect(startedOnWorker().filter((id) => id === execution.id).length).toBeGreaterThanOrEqual(2);
		console.log(
			`queue-mode wait limit 3 s: ended ${((Date.parse(execution.stoppedAt) - limitRun.startedAt) / 1000).toFixed(1)} s after the start`,
		);
	}, 180000);

	test('no process printed the API key', () => {
		expect(cluster.logs()).not.toContain(API_KEY);
		expect(cluster.hosts.reduce((n, h) => n + h.redactions, 0)).toBe(0);
	});
});
