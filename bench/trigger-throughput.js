'use strict';
/**
 * What a user of the Media Gateway Trigger relies on under a burst of callbacks, for two designs of the
 * trigger in ONE run, back to back, on the same n8n install (dev/n8n-host), with n8n's own Webhook node
 * as the reference in each:
 *
 * - every ref in BENCH_REFS (default `6ccf7dd`, the answer-first trigger, at-most-once) is checked out into a
 *   temporary `git worktree` under the OS temp dir, built (its node_modules is this worktree's), packed and
 *   installed into its own n8n user folder;
 * - then this worktree as it is now (built first), likewise.
 *
 * For each: BENCH_CALLBACKS (default 400) distinct final image callbacks POSTed 50 at a time to the trigger,
 * then to a Webhook node in the same instance. Figures: answers/s, answer p50/p99/max, the share of answers
 * over the gateway's 5 s, and end to end (from n8n's execution records): callbacks/s until the last
 * execution was created and until the last one finished, executions by status, callbacks lost (no
 * execution) or doubled (more than one). Then the ratios of the current design to each ref. The load
 * average is printed with every block. Prints figures only, asserts nothing about time, exits 0 (1 only
 * when n8n or a build could not be set up).
 *
 *   node bench/trigger-throughput.js        (Node 24 on PATH; needs dev/n8n-host/install.sh)
 *   BENCH_CALLBACKS=200 BENCH_REFS=6ccf7dd,a9c6be2 node bench/trigger-throughput.js
 *
 * BENCH_SETTLE_S (default 300) bounds the wait for the executions to finish after the last answer.
 * BENCH_N8N_ENV='{"N8N_EXPRESSION_ENGINE":"legacy"}' passes extra settings to every n8n.
 */
const { execFile } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { promisify } = require('node:util');
const { N8nHost } = require('../dev/n8n-host/host');
const { imageCallback } = require('../dev/gateway-callbacks');
const { mapLimit, quantile } = require('../dev/load-generation');

const execFileAsync = promisify(execFile);
const REPO = path.resolve(__dirname, '..');
const CALLBACKS = Math.max(1, Number(process.env.BENCH_CALLBACKS) || 400);
const REFS = (process.env.BENCH_REFS ?? '6ccf7dd')
	.split(',')
	.map((r) => r.trim())
	.filter(Boolean);
const SETTLE_MS = Math.max(10, Number(process.env.BENCH_SETTLE_S) || 300) * 1000;
const CONCURRENCY = 50;
const WARM_UP = 20;
/** The gateway waits this long for an answer before it counts the delivery as failed and retries. */
const GATEWAY_TIMEOUT_MS = 5000;
const TRIGGER_WF = 'benchTriggerWf01';
const WEBHOOK_WF = 'benchWebhookWf01';
const TRIGGER_WEBHOOK_ID = '9e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a21';
const WEBHOOK_PATH = 'bench-webhook';

const workflows = [
	{
		id: TRIGGER_WF,
		name: 'bench: Media Gateway Trigger',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'bench-trigger',
				name: 'Media Gateway Trigger',
				type: 'n8n-nodes-media-gateway.mediaGatewayTrigger',
				typeVersion: 1,
				position: [0, 0],
				webhookId: TRIGGER_WEBHOOK_ID,
				parameters: {
					kinds: ['image', 'video', 'music'],
					finalOnly: true,
					ignoreDuplicates: true,
					authentication: 'none',
					options: {},
				},
			},
		],
		connections: {},
	},
	{
		id: WEBHOOK_WF,
		name: 'bench: n8n Webhook node',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'bench-webhook',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: '9e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a22',
				parameters: {
					httpMethod: 'POST',
					path: WEBHOOK_PATH,
					responseMode: 'onReceived',
					options: {},
				},
			},
		],
		connections: {},
	},
];

function callback(id) {
	return JSON.stringify(imageCallback(id));
}

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

const loadAverage = () =>
	os
		.loadavg()
		.map((x) => x.toFixed(2))
		.join(' ');

/** sqlite keeps n8n's dates as 'YYYY-MM-DD HH:MM:SS.sss' in UTC. */
function epochMs(value) {
	if (value === null || value === undefined) return null;
	if (value instanceof Date) return value.getTime();
	return Date.parse(`${String(value).replace(' ', 'T')}Z`);
}

/** POSTs every body, `concurrency` at a time; answer times in ms and HTTP statuses. */
async function blast(url, bodies, concurrency) {
	const times = [];
	const statuses = {};
	const t0 = performance.now();
	await mapLimit(bodies, concurrency, async (body) => {
		const start = performance.now();
		let status;
		try {
			const response = await fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body,
			});
			await response.arrayBuffer();
			status = response.status;
		} catch (error) {
			status = `error ${error.cause?.code ?? error.message}`;
		}
		times.push(performance.now() - start);
		statuses[status] = (statuses[status] ?? 0) + 1;
	});
	const wallMs = performance.now() - t0;
	times.sort((a, b) => a - b);
	return {
		wallMs,
		rps: (bodies.length / wallMs) * 1000,
		p50: quantile(times, 0.5),
		p99: quantile(times, 0.99),
		max: times[times.length - 1],
		over5s: times.filter((t) => t > GATEWAY_TIMEOUT_MS).length / times.length,
		statuses,
		non200: bodies.length - (statuses[200] ?? 0),
	};
}

/** Executions of a workflow after `afterId` by status, straight from n8n's database (no data parsed). */
async function executionCounts(host, workflowId, afterId = 0) {
	const rows = await host.query(
		'SELECT status, COUNT(*) AS n FROM execution_entity WHERE "workflowId" = ? AND id > ? GROUP BY status',
		[workflowId, afterId],
	);
	const counts = Object.fromEntries(rows.map((r) => [r.status, r.n]));
	const total = rows.reduce((sum, r) => sum + r.n, 0);
	const pending = (counts.new ?? 0) + (counts.running ?? 0);
	return { total, pending, counts };
}

async function maxExecutionId(host) {
	const [row] = await host.query('SELECT MAX(id) AS id FROM execution_entity');
	return Number(row?.id ?? 0);
}

/** Waits until the executions stop changing: none pending and the same count for 1.5 s (3 s while short). */
async function settle(host, workflowId, afterId, expected, timeoutMs = SETTLE_MS) {
	const t0 = Date.now();
	let last = await executionCounts(host, workflowId, afterId);
	let stableSince = Date.now();
	for (;;) {
		await sleep(500);
		const now = await executionCounts(host, workflowId, afterId);
		if (now.total !== last.total || now.pending !== last.pending) stableSince = Date.now();
		last = now;
		const quiet =
			now.pending === 0 && Date.now() - stableSince >= (now.total >= expected ? 1500 : 3000);
		if (quiet) return { ...now, settleMs: Date.now() - t0 };
		if (Date.now() - t0 > timeoutMs) return { ...now, settleMs: Date.now() - t0, timedOut: true };
	}
}

/**
 * Which callback each execution carries (its id appears in the saved data), so that a lost callback and a
 * doubled one cannot cancel out in a count; and when the last execution was created and finished.
 */
async function endToEnd(host, workflowId, afterId, prefix, startedAtMs) {
	const rows = await host.query(
		`SELECT e.id, e.status, e."createdAt", e."stoppedAt", d.data FROM execution_entity e
		LEFT JOIN execution_data d ON d."executionId" = e.id WHERE e."workflowId" = ? AND e.id > ?`,
		[workflowId, afterId],
	);
	const pattern = new RegExp(`${prefix}-(\\d+)`, 'g');
	const perCallback = new Map();
	let unattributed = 0;
	let lastCreated = 0;
	let lastStopped = 0;
	let unfinished = 0;
	for (const row of rows) {
		const ids = new Set([...String(row.data ?? '').matchAll(pattern)].map((m) => Number(m[1])));
		if (ids.size !== 1) unattributed++;
		for (const id of ids) perCallback.set(id, (perCallback.get(id) ?? 0) + 1);
		lastCreated = Math.max(lastCreated, epochMs(row.createdAt) ?? 0);
		const stopped = epochMs(row.stoppedAt);
		if (stopped === null) unfinished++;
		else lastStopped = Math.max(lastStopped, stopped);
	}
	let lost = 0;
	let doubled = 0;
	for (let i = 0; i < CALLBACKS; i++) {
		const n = perCallback.get(i) ?? 0;
		if (n === 0) lost++;
		if (n > 1) doubled += n - 1;
	}
	const rate = (until) => (until > startedAtMs ? (CALLBACKS / (until - startedAtMs)) * 1000 : NaN);
	return {
		executions: rows.length,
		lost,
		doubled,
		unattributed,
		unfinished,
		createdRps: rate(lastCreated),
		createdS: (lastCreated - startedAtMs) / 1000,
		finishedRps: unfinished > 0 ? NaN : rate(lastStopped),
		finishedS: (lastStopped - startedAtMs) / 1000,
	};
}

async function measure(host, label, url, workflowId, prefix) {
	const afterId = await maxExecutionId(host);
	const bodies = Array.from({ length: CALLBACKS }, (_, i) => callback(`${prefix}-${i}`));
	const loadBefore = loadAverage();
	const startedAtMs = Date.now();
	const answers = await blast(url, bodies, CONCURRENCY);
	const loadAtLastAnswer = loadAverage();
	const settled = await settle(host, workflowId, afterId, CALLBACKS);
	const e2e = await endToEnd(host, workflowId, afterId, prefix, startedAtMs);
	return {
		label,
		...answers,
		settled,
		e2e,
		loadBefore,
		loadAtLastAnswer,
		loadAfter: loadAverage(),
	};
}

async function build(dir) {
	try {
		await execFileAsync('npm', ['run', 'build'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
	} catch (error) {
		throw new Error(`npm run build in ${dir} failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
	}
}

/** Checks `ref` out into a temporary worktree, builds it with this worktree's node_modules and packs it. */
async function packRef(ref) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-bench-ref-'));
	try {
		await execFileAsync('git', ['worktree', 'add', '--detach', dir, ref], { cwd: REPO });
		const { stdout } = await execFileAsync('git', ['log', '-1', '--format=%h %s', ref], {
			cwd: REPO,
		});
		fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
		await build(dir);
		return { tarball: await N8nHost.packPackage(dir), title: stdout.trim() };
	} finally {
		await execFileAsync('git', ['worktree', 'remove', '--force', dir], { cwd: REPO }).catch(
			() => {},
		);
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

async function packCurrent() {
	await build(REPO);
	const { stdout } = await execFileAsync('git', ['log', '-1', '--format=%h %s'], { cwd: REPO });
	const { stdout: dirty } = await execFileAsync(
		'git',
		['status', '--porcelain', '--untracked-files=no'],
		{ cwd: REPO },
	);
	return {
		tarball: await N8nHost.packPackage(REPO),
		title: `${stdout.trim()}${dirty.trim() ? ' + uncommitted changes' : ''}`,
	};
}

/** One n8n of its own for one build of the package: the trigger, then the Webhook node. */
async function runDesign(design, extraEnv) {
	// 'info', not the host's default 'debug': a debug line per request would be part of what is measured.
	const host = new N8nHost({ tarball: design.tarball, logLevel: 'info', env: extraEnv });
	try {
		await host.installPackage();
		await host.importWorkflows(workflows);
		await host.publish([TRIGGER_WF, WEBHOOK_WF]);
		await host.start();
		const triggerUrl = host.webhookUrl(`${TRIGGER_WEBHOOK_ID}/webhook`);
		const webhookUrl = host.webhookUrl(WEBHOOK_PATH);
		// Warm-up: first requests compile code paths and fill caches in n8n.
		for (const [url, workflowId] of [
			[triggerUrl, TRIGGER_WF],
			[webhookUrl, WEBHOOK_WF],
		]) {
			const warm = await blast(
				url,
				Array.from({ length: WARM_UP }, (_, i) => callback(`warm-${workflowId}-${i}`)),
				10,
			);
			if (warm.non200 > 0)
				throw new Error(`warm-up of ${workflowId} got ${JSON.stringify(warm.statuses)}`);
			await settle(host, workflowId, 0, WARM_UP);
		}
		// The trigger goes first: the Webhook node then runs on a database that already holds its executions.
		const trigger = await measure(
			host,
			'Media Gateway Trigger',
			triggerUrl,
			TRIGGER_WF,
			'bench-trg',
		);
		const webhook = await measure(host, 'n8n Webhook node', webhookUrl, WEBHOOK_WF, 'bench-whk');
		return { ...design, trigger, webhook };
	} finally {
		await host.stop();
	}
}

const num = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

function line(label, value) {
	console.log(`    ${label.padEnd(44, ' ')}${value}`);
}

function report(r) {
	const e = r.e2e;
	console.log(
		`  ${r.label}   (load average before ${r.loadBefore}; at the last answer ${r.loadAtLastAnswer}; after ${r.loadAfter})`,
	);
	line('answers/s', `${num(r.rps)} (${CALLBACKS} in ${num(r.wallMs / 1000, 2)} s)`);
	line('answer p50 / p99 / max', `${num(r.p50, 0)} / ${num(r.p99, 0)} / ${num(r.max, 0)} ms`);
	line(`answers over the gateway's ${GATEWAY_TIMEOUT_MS / 1000} s`, `${num(r.over5s * 100)} %`);
	line('answers by status', JSON.stringify(r.statuses));
	line(
		'callbacks/s until the last execution created',
		`${num(e.createdRps)} (${num(e.createdS)} s)`,
	);
	line(
		'callbacks/s until the last execution finished',
		Number.isFinite(e.finishedRps)
			? `${num(e.finishedRps)} (${num(e.finishedS)} s)`
			: `n/a: ${e.unfinished} executions still unfinished ${num(SETTLE_MS / 1000, 0)} s after the last answer`,
	);
	line('executions by status', JSON.stringify(r.settled.counts));
	line(
		'callbacks lost / doubled',
		`${e.lost} / ${e.doubled}  (executions ${e.executions}, callbacks ${CALLBACKS}${e.unattributed ? `, ${e.unattributed} not attributable` : ''})`,
	);
}

const METRICS = [
	['answers/s', (r) => r.rps, 'higher'],
	['answer p50', (r) => r.p50, 'lower'],
	['answer p99', (r) => r.p99, 'lower'],
	['answer max', (r) => r.max, 'lower'],
	['callbacks/s to last execution created', (r) => r.e2e.createdRps, 'higher'],
	['callbacks/s to last execution finished', (r) => r.e2e.finishedRps, 'higher'],
];

function ratios(current, base) {
	console.log(
		`\nRatios ${current.name} / ${base.name} (Media Gateway Trigger; within 10 %: >= 0.90 where higher is better, <= 1.10 where lower is better)`,
	);
	console.log(
		'  the throughput target is the last ratio: callbacks turned into executions that have run (README, Benchmarks)',
	);
	for (const [label, get, better] of METRICS) {
		const ratio = get(current.trigger) / get(base.trigger);
		const met = better === 'higher' ? ratio >= 0.9 : ratio <= 1.1;
		line(
			label,
			Number.isFinite(ratio)
				? `${ratio.toFixed(2)}x  (${better} is better: ${met ? 'within 10 %' : 'NOT within 10 %'})`
				: 'n/a',
		);
	}
	line(
		'share of answers over 5 s',
		`${num(current.trigger.over5s * 100)} % vs ${num(base.trigger.over5s * 100)} %`,
	);
	line(
		'callbacks lost / doubled',
		`${current.trigger.e2e.lost} / ${current.trigger.e2e.doubled} vs ${base.trigger.e2e.lost} / ${base.trigger.e2e.doubled}`,
	);
	line(
		'reference: Webhook node answers/s',
		`${num(current.webhook.rps)} vs ${num(base.webhook.rps)} (${(current.webhook.rps / base.webhook.rps).toFixed(2)}x: the instances' own noise)`,
	);
}

async function main() {
	const extraEnv = JSON.parse(process.env.BENCH_N8N_ENV || '{}');
	const designs = [];
	let exitCode = 0;
	try {
		for (const ref of REFS) designs.push({ name: ref, ...(await packRef(ref)) });
		designs.push({ name: 'current', ...(await packCurrent()) });
		console.log(
			`Media Gateway Trigger under a burst: ${CALLBACKS} distinct final image callbacks, ${CONCURRENCY} concurrent, per design ` +
				`(each in its own n8n user folder, same n8n install), n8n's Webhook node in the same instance as reference; ` +
				`${os.cpus().length} CPUs; expression engine ${extraEnv.N8N_EXPRESSION_ENGINE ?? 'vm (default)'}` +
				`${Object.keys(extraEnv).length ? `, extra env ${JSON.stringify(extraEnv)}` : ''}`,
		);
		const results = [];
		for (const design of designs) {
			const result = await runDesign(design, extraEnv);
			results.push(result);
			console.log(`\n${design.name}: ${design.title}`);
			report(result.trigger);
			report(result.webhook);
			line(
				'trigger / Webhook node answers/s',
				`${(result.trigger.rps / result.webhook.rps).toFixed(2)}x`,
			);
		}
		const current = results[results.length - 1];
		for (const base of results.slice(0, -1)) ratios(current, base);
		console.log(`\nload average at the end: ${loadAverage()}`);
	} catch (error) {
		console.error(`bench failed: ${error.stack ?? error}`);
		exitCode = 1;
	} finally {
		for (const design of designs)
			fs.rmSync(path.dirname(design.tarball), { recursive: true, force: true });
	}
	return exitCode;
}

main().then((code) => process.exit(code));
