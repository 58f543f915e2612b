'use strict';
/**
 * Prints how long 20 videos of 2 s each take in a real n8n (dev/n8n-host, regular mode) with
 *   1. Completion "Wait for Callback", all 20 items in one execution (one park, one resume),
 *   2. "Wait for Callback" with one item: one task's own end-to-end time in the same setup (the
 *      yardstick of the batch; measured interleaved with the batch runs, so both see the same load),
 *   3. "Wait for Callback" one item at a time behind Loop Over Items (batch size 1), as the README used to advise,
 *   4. Completion "Wait Until Done" (poll interval 0.25 s), all 20 items in one execution,
 * and how long each execution was `running` in n8n's records (a worker held), in all and while its tasks
 * rendered (status sampled every 100 ms). For the batch it also prints where the time after the last
 * task finished went (the gateway's final callback, its answer, the gateway reads, the execution's end),
 * from the simulator's own logs. Prints figures and ratios only; exits 0 whatever the timings (1 only
 * if a run fails). Needs the built package and `bash dev/n8n-host/install.sh`.
 *
 *   npm run bench:callback   (BENCH_RUNS=n runs of the batch, the one-item run and Wait Until Done,
 *                             default 3; BENCH_LOOP_RUNS=n runs of one by one, default 1, 0 skips one by
 *                             one and Wait Until Done; medians count)
 * Then the batch and the one-item run once more in a second n8n with n8n's `legacy` expression engine
 * (BENCH_ENGINE_COMPARE=0 skips it), which shows what n8n 2.x's per-callback expression isolate costs.
 *   BENCH_N8N_ENV='{"N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE":"true"}' passes n8n settings to both n8n;
 *   BENCH_TIMELINE=1 also prints every final callback of the median batch and every task read.
 */
const fs = require('node:fs');
const path = require('node:path');

const { N8nHost } = require('../dev/n8n-host/host');
const { startSimulator } = require('../dev/simulator');
const { postJson } = require('../dev/gateway-callbacks');
const { RUNS, fmt, verdict, median, loadAverage: load, runBench } = require('./common');

const REPO = path.resolve(__dirname, '..');
const API_KEY = 'bench-callback-key';
const ITEMS = 20;
const TASK_MS = 2000;
const LOOP_RUNS =
	process.env.BENCH_LOOP_RUNS === '0' ? 0 : Math.max(1, Number(process.env.BENCH_LOOP_RUNS) || 1);
const EXTRA_ENV = JSON.parse(process.env.BENCH_N8N_ENV || '{}');
const batchExample = JSON.parse(
	fs.readFileSync(path.join(REPO, 'examples', 'video-batch-wait-for-callback.json'), 'utf8'),
);

/** The example with its own id and path, a standard-tier video node with `video` parameters. */
function workflow(id, video) {
	const wf = JSON.parse(JSON.stringify(batchExample));
	wf.id = id;
	wf.name = `bench ${id}`;
	const webhook = wf.nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
	webhook.webhookId = require('node:crypto').randomUUID();
	webhook.parameters.path = `bench-${id.toLowerCase()}`;
	const node = wf.nodes.find((n) => n.name === 'Render videos');
	Object.assign(
		node.parameters,
		{ model: 'vidmodel', options: { download: false, concurrency: 5 } },
		video,
	);
	wf.nodes = wf.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
	return wf;
}

const batchWf = workflow('BenchBatch', { completion: 'callback' });
const pollWf = workflow('BenchPoll', {
	completion: 'poll',
	pollIntervalSeconds: 0.25,
	waitTimeoutMinutes: 5,
});
/** Loop Over Items (batch size 1) → Wait for Callback → back to the loop; "done" → All done. */
const loopWf = (() => {
	const wf = workflow('BenchLoop', { completion: 'callback' });
	wf.nodes.push({
		id: require('node:crypto').randomUUID(),
		name: 'Loop Over Items',
		type: 'n8n-nodes-base.splitInBatches',
		typeVersion: 3,
		position: [360, 200],
		parameters: { batchSize: 1, options: {} },
	});
	const done = wf.nodes.find((n) => n.name === 'All done');
	done.parameters.assignments.assignments = done.parameters.assignments.assignments.filter(
		(a) => !a.value.includes("$('Prompt list')"),
	);
	wf.connections = {
		Webhook: { main: [[{ node: 'Prompt list', type: 'main', index: 0 }]] },
		'Prompt list': { main: [[{ node: 'Loop Over Items', type: 'main', index: 0 }]] },
		'Loop Over Items': {
			main: [
				[{ node: 'All done', type: 'main', index: 0 }],
				[{ node: 'Render videos', type: 'main', index: 0 }],
			],
		},
		'Render videos': { main: [[{ node: 'Loop Over Items', type: 'main', index: 0 }]] },
	};
	return wf;
})();

const prompts = Array.from({ length: ITEMS }, (_, i) => `Bench clip ${i}`);

/**
 * Samples the execution's status in n8n's database every SAMPLE_MS until it ends: how long it was
 * `running` (a worker held) in all, and how much of that fell while tasks were rendering.
 */
const SAMPLE_MS = 100;
async function sampleRunning(host, wf, before, stop) {
	const samples = [];
	while (!stop.done) {
		const rows = await host.query(
			'SELECT id, status FROM execution_entity WHERE "workflowId" = ? ORDER BY id DESC LIMIT 1',
			[wf.id],
		);
		const row = rows[0];
		if (row && !before.has(String(row.id))) samples.push({ at: Date.now(), status: row.status });
		await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
	}
	return samples;
}

function runningMs(samples, from = -Infinity, to = Infinity) {
	let total = 0;
	for (let i = 1; i < samples.length; i++) {
		const a = Math.max(samples[i - 1].at, from);
		const b = Math.min(samples[i].at, to);
		if (samples[i - 1].status === 'running' && b > a) total += b - a;
	}
	return total;
}

const FINAL = new Set(['succeed', 'failed']);

/**
 * Where the time after the last task finished went, from the simulator's own logs (same clock as
 * t0 and the tasks): when the gateway sent the last task's final callback and when that was answered,
 * when the last final callback of any task was answered 200, how many task reads (`GET /v1/videos/{id}`)
 * n8n made after the last task finished and in all, and final callbacks not answered 200 at once (each
 * is retried by the gateway 10 s later).
 */
function afterLastTask(sim, lastTask, stoppedAt) {
	const finals = sim.callbackLog.filter((c) => FINAL.has(c.payload?.status));
	const lastTaskFirst = finals
		.filter((c) => c.payload.id === lastTask.id)
		.sort((a, b) => a.at - b.at)[0];
	const answered200 = finals.filter((c) => c.status === 200).map((c) => c.at + c.elapsedMs);
	const reads = sim.requests.filter(
		(r) => r.method === 'GET' && /^\/v1\/videos\/[^/]+$/.test(r.path),
	);
	const timeline = finals
		.map((c) => ({
			sent: c.at - lastTask.completeAt,
			answered: c.at + c.elapsedMs - lastTask.completeAt,
			status: c.status,
		}))
		.sort((a, b) => a.sent - b.sent);
	const readTimes = reads.map((r) => r.at - lastTask.completeAt).sort((a, b) => a - b);
	return {
		timeline,
		readTimes,
		callbackSent: lastTaskFirst ? lastTaskFirst.at - lastTask.completeAt : NaN,
		callbackAnswered: lastTaskFirst
			? lastTaskFirst.at + lastTaskFirst.elapsedMs - lastTask.completeAt
			: NaN,
		lastAnswered200: answered200.length ? Math.max(...answered200) - lastTask.completeAt : NaN,
		stopped: stoppedAt - lastTask.completeAt,
		readsAfter: reads.filter((r) => r.at >= lastTask.completeAt).length,
		reads: reads.length,
		notAnswered200: finals
			.filter((c) => c.status !== 200)
			.map((c) => `${c.status} after ${fmt(c.elapsedMs)}`),
	};
}

async function measure(host, sim, wf, list = prompts) {
	sim.reset();
	const before = new Set((await host.executions({ workflowId: wf.id })).map((e) => e.id));
	const stop = { done: false };
	const sampling = sampleRunning(host, wf, before, stop);
	const t0 = Date.now();
	const started = await postJson(
		host.webhookUrl(wf.nodes.find((n) => n.name === 'Webhook').parameters.path),
		{ prompts: list },
	);
	if (started.status !== 200)
		throw new Error(`${wf.id}: the Webhook node answered ${started.status}`);
	const found = await host.waitForExecutions(
		(l) => l.some((e) => !before.has(e.id) && ['success', 'error', 'crashed'].includes(e.status)),
		{ workflowId: wf.id, timeoutMs: 10 * 60_000, intervalMs: 100 },
	);
	stop.done = true;
	const samples = await sampling;
	const execution = found.find((e) => !before.has(e.id));
	if (execution.status !== 'success')
		throw new Error(`${wf.id}: execution ${execution.id} ended ${execution.status}`);
	const out = execution.runData['All done']?.at(-1)?.items ?? [];
	const items = wf === loopWf ? execution.runData['Render videos'].length : out.length;
	if (items !== list.length) throw new Error(`${wf.id}: ${items} videos instead of ${list.length}`);
	const tasks = [...sim.tasks.values()];
	const firstCreated = Math.min(...tasks.map((t) => t.createdAt));
	const lastTask = tasks.reduce((a, b) => (b.completeAt > a.completeAt ? b : a));
	// "While rendering": the union of the tasks' render windows (one window for a batch, twenty for the loop).
	const windows = tasks
		.map((t) => [t.createdAt + SAMPLE_MS, t.completeAt])
		.sort((a, b) => a[0] - b[0]);
	const union = [];
	for (const [from, to] of windows) {
		const last = union[union.length - 1];
		if (last && from <= last[1]) last[1] = Math.max(last[1], to);
		else if (to > from) union.push([from, to]);
	}
	const renderingRunning = union.reduce((sum, [from, to]) => sum + runningMs(samples, from, to), 0);
	const stoppedAt = Date.parse(execution.stoppedAt);
	return {
		ms: stoppedAt - t0,
		running: runningMs(samples),
		renderingRunning,
		firstCreated: firstCreated - t0,
		renderWindow: lastTask.completeAt - firstCreated,
		after: afterLastTask(sim, lastTask, stoppedAt),
		// The workflow's own next node: five expressions per item, two of them `$('Prompt list').item`.
		allDoneMs: execution.runData['All done']?.at(-1)?.executionTime ?? NaN,
	};
}

/** A real n8n with the package, the demo credentials and the three workflows, started with `env`. */
async function startHost(tarball, sim, env) {
	const host = new N8nHost({ tarball, logLevel: 'info', env });
	await host.installPackage();
	await host.importCredentials([
		{
			id: 'mediaGatewayDemo',
			name: 'Media Gateway (demo)',
			type: 'mediaGatewayApi',
			data: { apiKey: API_KEY, baseUrl: sim.url },
		},
	]);
	const workflows = [batchWf, loopWf, pollWf];
	await host.importWorkflows(workflows);
	await host.publish(workflows.map((w) => w.id));
	await host.start();
	// Warm-up: n8n's first execution pays for loading nodes and the expression engine.
	await measure(host, sim, batchWf);
	return host;
}

/** The batch and the one-item run, alternating, so drifting load on a shared machine affects both alike. */
async function batchAndOne(host, sim) {
	const oneRuns = [];
	const batchRuns = [];
	for (let i = 0; i < RUNS; i++) {
		oneRuns.push(await measure(host, sim, batchWf, prompts.slice(0, 1)));
		batchRuns.push(await measure(host, sim, batchWf));
	}
	return { one: median(oneRuns), batch: median(batchRuns) };
}

const row = (label, r) =>
	`  ${label.padEnd(44)} wall ${fmt(r.ms).padStart(8)}   execution running ${fmt(r.running).padStart(8)}, of it while tasks rendered ${fmt(r.renderingRunning).padStart(8)}   runs ${r.runs.map((x) => fmt(x.ms)).join(', ')}`;
const breakdown = (label, r) => {
	const a = r.after;
	return `  ${label}, after the last task finished: its final callback sent +${fmt(a.callbackSent)}, answered +${fmt(a.callbackAnswered)}; last final callback answered 200 +${fmt(a.lastAnswered200)}; execution stopped +${fmt(a.stopped)} (of it the next node, All done, ${fmt(r.allDoneMs)}); task reads after it ${a.readsAfter} (in all ${a.reads}); final callbacks not answered 200: ${a.notAnswered200.length ? a.notAnswered200.join(', ') : 'none'}`;
};
const ratioToOne = ({ batch, one }) =>
	`${(batch.ms / one.ms).toFixed(2)}x  target <= 1.5x: ${verdict(batch.ms <= 1.5 * one.ms)}`;

function printTimeline(batch) {
	if (process.env.BENCH_TIMELINE !== '1') return;
	const t = (ms) => `${ms >= 0 ? '+' : ''}${(ms / 1000).toFixed(2)}`;
	console.log(
		`  batch (median run), final callbacks relative to the last task's completion (sent → answered, status):`,
	);
	console.log(
		`    ${batch.after.timeline.map((c) => `${t(c.sent)}→${t(c.answered)} ${c.status}`).join(', ')}`,
	);
	console.log(`    task reads at: ${batch.after.readTimes.map(t).join(' ')}`);
}

/**
 * The same batch and one-item run in a second n8n whose expression engine is n8n's `legacy` one (no
 * isolates): n8n 2.x builds an expression isolate for every callback that reaches a waiting execution
 * before any node code runs, and this shows how much of the batch's time that is.
 */
const COMPARE_ENV = { ...EXTRA_ENV, N8N_EXPRESSION_ENGINE: 'legacy' };
const COMPARE =
	process.env.BENCH_ENGINE_COMPARE !== '0' && EXTRA_ENV.N8N_EXPRESSION_ENGINE !== 'legacy';

async function main() {
	const sim = await startSimulator({
		apiKey: API_KEY,
		port: 0,
		videoCompleteAfterMs: TASK_MS,
		callbackTimeScale: 1,
	});
	const tarball = await N8nHost.packPackage(REPO);
	let host;
	try {
		host = await startHost(tarball, sim, EXTRA_ENV);
		const version = require(path.join(host.paths.N8N_MODULES, 'n8n', 'package.json')).version;
		const settings = (env) => (Object.keys(env).length ? JSON.stringify(env) : 'defaults');
		console.log(
			`bench:callback: ${ITEMS} videos of ${TASK_MS / 1000} s each, real n8n ${version} (regular mode), load average ${load()}, BENCH_RUNS=${RUNS}, BENCH_LOOP_RUNS=${LOOP_RUNS}, n8n settings ${settings(EXTRA_ENV)}`,
		);
		const { one, batch } = await batchAndOne(host, sim);
		// One by one and Wait Until Done: both skipped with BENCH_LOOP_RUNS=0.
		let loop;
		let poll;
		if (LOOP_RUNS) {
			const loopRuns = [];
			for (let i = 0; i < LOOP_RUNS; i++) loopRuns.push(await measure(host, sim, loopWf));
			loop = median(loopRuns);
			const pollRuns = [];
			for (let i = 0; i < RUNS; i++) pollRuns.push(await measure(host, sim, pollWf));
			poll = median(pollRuns);
		}
		await host.stop();
		host = undefined;

		let compared;
		if (COMPARE) {
			host = await startHost(tarball, sim, COMPARE_ENV);
			compared = await batchAndOne(host, sim);
			await host.stop();
			host = undefined;
		}

		console.log(row('Wait for Callback, one batch of 20', batch));
		console.log(row('Wait for Callback, one item (one task)', one));
		if (loop) console.log(row('Wait for Callback, Loop Over Items (1 by 1)', loop));
		if (poll) console.log(row('Wait Until Done (poll 0.25 s), 20 at once', poll));
		console.log(
			`  (status sampled in n8n's database every ${SAMPLE_MS} ms; "running" = a worker held; tasks of the batch rendered ${fmt(batch.renderWindow)} from the first creation, ${fmt(batch.firstCreated)} after the request, to the last completion)`,
		);
		console.log(breakdown('batch (median run)', batch));
		console.log(breakdown('one item (median run)', one));
		printTimeline(batch);
		console.log(
			`  batch vs one task's own end-to-end time (${fmt(one.ms)}, measured above): ${ratioToOne({ batch, one })}`,
		);
		console.log(
			`  batch vs one task's render time (${fmt(TASK_MS)}, the simulator's setting): ${(batch.ms / TASK_MS).toFixed(2)}x  target <= 1.5x: ${verdict(batch.ms <= 1.5 * TASK_MS)}`,
		);
		console.log(
			loop
				? `  one by one vs batch: ${(loop.ms / batch.ms).toFixed(1)}x slower  target >= 10x: ${verdict(loop.ms >= 10 * batch.ms)}`
				: '  one by one vs batch: not run (BENCH_LOOP_RUNS=0)',
		);
		console.log(
			`  worker held while the batch's tasks rendered: ${fmt(batch.renderingRunning)} (Wait Until Done: ${poll ? fmt(poll.renderingRunning) : 'not run'})  target none: ${verdict(batch.renderingRunning <= 2 * SAMPLE_MS)}`,
		);
		if (compared) {
			console.log(
				`  the same in a second n8n with n8n settings ${settings(COMPARE_ENV)} (no expression isolates; BENCH_ENGINE_COMPARE=0 skips it):`,
			);
			console.log(row('Wait for Callback, one batch of 20', compared.batch));
			console.log(row('Wait for Callback, one item (one task)', compared.one));
			console.log(breakdown('batch (median run)', compared.batch));
			printTimeline(compared.batch);
			console.log(
				`  batch vs one task's own end-to-end time (${fmt(compared.one.ms)}): ${ratioToOne(compared)}`,
			);
		}
		console.log(`  load average at the end: ${load()}`);
	} finally {
		if (host) await host.stop();
		await sim.close();
		fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
	}
}

runBench(main);
