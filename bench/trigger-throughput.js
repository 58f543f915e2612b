'use strict';
/**
 * Prints how fast the Media Gateway Trigger takes callbacks in a real n8n, next to n8n's own Webhook node
 * as the yardstick: one n8n (tools/n8n-host) with the built package, two published workflows, and
 * BENCH_CALLBACKS (default 1000) distinct final image callbacks POSTed at 50 concurrent to each. For each:
 * throughput, p50/p99 answer time, non-200 answers, executions started vs callbacks sent (counted once
 * the executions have settled). Prints figures and PASS/MISS per target; asserts nothing and exits 0
 * (1 only when n8n could not be set up).
 *
 *   node bench/trigger-throughput.js        (Node 24 on PATH; needs tools/n8n-host/install.sh and dist/)
 *
 * BENCH_N8N_ENV='{"N8N_EXPRESSION_ENGINE":"legacy"}' passes extra settings to n8n. That one matters: with
 * n8n's default expression engine ('vm', pool of 1 isolate) every isolate acquisition waits for a fresh
 * isolate to be built. n8n's own Webhook node skips the acquisition in the webhook phase; every other
 * trigger node (this one included) cannot, so it pays for two per execution instead of one.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { N8nHost } = require('../tools/n8n-host/host');
const { imageCallback } = require('../test/fixtures/callbacks');
const { mapLimit, quantile } = require('../test/fixtures/load');

const REPO = path.resolve(__dirname, '..');
const CALLBACKS = Math.max(1, Number(process.env.BENCH_CALLBACKS) || 1000);
const CONCURRENCY = 50;
const WARM_UP = 20;
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
				parameters: { httpMethod: 'POST', path: WEBHOOK_PATH, responseMode: 'onReceived', options: {} },
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

/** POSTs every body, `concurrency` at a time; answer times in ms and HTTP statuses. */
async function blast(url, bodies, concurrency) {
	const times = [];
	const statuses = {};
	const t0 = performance.now();
	await mapLimit(bodies, concurrency, async (body) => {
		const start = performance.now();
		let status;
		try {
			const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
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
		statuses,
		non200: bodies.length - (statuses[200] ?? 0),
	};
}

/** Executions of a workflow by status, straight from n8n's database (cheap: no execution data parsed). */
async function executionCounts(host, workflowId) {
	const rows = await host.query(
		'SELECT status, COUNT(*) AS n FROM execution_entity WHERE workflowId = ? GROUP BY status',
		[workflowId],
	);
	const counts = Object.fromEntries(rows.map((r) => [r.status, r.n]));
	const total = rows.reduce((sum, r) => sum + r.n, 0);
	const pending = (counts.new ?? 0) + (counts.running ?? 0);
	return { total, pending, counts };
}

/** Waits until the workflow's executions stop changing: none pending and the same count for 3 s. */
async function settle(host, workflowId, expected, { timeoutMs = 300000 } = {}) {
	const t0 = Date.now();
	let last = await executionCounts(host, workflowId);
	let stableSince = Date.now();
	for (;;) {
		await sleep(500);
		const now = await executionCounts(host, workflowId);
		if (now.total !== last.total || now.pending !== last.pending) stableSince = Date.now();
		last = now;
		const quiet = now.pending === 0 && Date.now() - stableSince >= (now.total >= expected ? 1500 : 3000);
		if (quiet) return { ...now, settleMs: Date.now() - t0 };
		if (Date.now() - t0 > timeoutMs) return { ...now, settleMs: Date.now() - t0, timedOut: true };
	}
}

async function measure(host, label, url, workflowId, prefix) {
	const before = (await executionCounts(host, workflowId)).total;
	const bodies = Array.from({ length: CALLBACKS }, (_, i) => callback(`${prefix}-${i}`));
	const result = await blast(url, bodies, CONCURRENCY);
	const settled = await settle(host, workflowId, before + CALLBACKS);
	return { label, ...result, executions: settled.total - before, settled };
}

function line(label, value) {
	console.log(`  ${label.padEnd(38, ' ')}${value}`);
}

function target(label, ok) {
	console.log(`  target: ${label} ${'.'.repeat(Math.max(3, 46 - label.length))} ${ok ? 'PASS' : 'MISS'}`);
}

async function main() {
	const tarball = await N8nHost.packPackage(REPO);
	// 'info', not the host's default 'debug': a debug line per request would be part of what is measured.
	const extraEnv = JSON.parse(process.env.BENCH_N8N_ENV || '{}');
	const host = new N8nHost({ tarball, logLevel: 'info', env: extraEnv });
	let exitCode = 0;
	try {
		const t0 = Date.now();
		await host.installPackage();
		await host.importWorkflows(workflows);
		await host.publish([TRIGGER_WF, WEBHOOK_WF]);
		await host.start();
		console.log(`n8n ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (start ${(host.timings.start / 1000).toFixed(1)} s)`);

		const triggerUrl = host.webhookUrl(`${TRIGGER_WEBHOOK_ID}/webhook`);
		const webhookUrl = host.webhookUrl(WEBHOOK_PATH);
		// Warm-up: first requests compile code paths and fill caches in n8n.
		for (const [url, workflowId] of [
			[triggerUrl, TRIGGER_WF],
			[webhookUrl, WEBHOOK_WF],
		]) {
			const warm = await blast(url, Array.from({ length: WARM_UP }, (_, i) => callback(`warm-${workflowId}-${i}`)), 10);
			if (warm.non200 > 0) throw new Error(`warm-up of ${workflowId} got ${JSON.stringify(warm.statuses)}`);
			await settle(host, workflowId, WARM_UP);
		}

		const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
		console.log(
			`\nMedia Gateway Trigger vs n8n Webhook node: ${CALLBACKS} distinct final image callbacks, ${CONCURRENCY} concurrent, ` +
				`real n8n ${host.url} (${os.cpus().length} CPUs, load average before: ${load}; ` +
				`expression engine ${extraEnv.N8N_EXPRESSION_ENGINE ?? 'vm (default)'}${Object.keys(extraEnv).length ? `, extra env ${JSON.stringify(extraEnv)}` : ''})`,
		);
		// The trigger goes first: the Webhook node then runs on a database that already holds its executions.
		const trigger = await measure(host, 'Media Gateway Trigger', triggerUrl, TRIGGER_WF, 'bench-trg');
		const webhook = await measure(host, 'n8n Webhook node', webhookUrl, WEBHOOK_WF, 'bench-whk');

		for (const r of [trigger, webhook]) {
			console.log(`\n${r.label}`);
			line('throughput', `${r.rps.toFixed(1)} req/s (${CALLBACKS} in ${(r.wallMs / 1000).toFixed(2)} s)`);
			line('answer time p50 / p99 / max', `${r.p50.toFixed(0)} / ${r.p99.toFixed(0)} / ${r.max.toFixed(0)} ms`);
			line('answers by status', JSON.stringify(r.statuses));
			line('non-200 answers', String(r.non200));
			line(
				'executions started / callbacks sent',
				`${r.executions} / ${CALLBACKS}  (settled ${(r.settled.settleMs / 1000).toFixed(1)} s after the last answer` +
					`${r.settled.timedOut ? ', NOT settled' : ''}; by status ${JSON.stringify(r.settled.counts)})`,
			);
		}
		const ratio = trigger.rps / webhook.rps;
		console.log('');
		line('throughput ratio trigger / webhook', `${ratio.toFixed(2)}x`);
		console.log('');
		target('trigger: all answers 200', trigger.non200 === 0);
		target('trigger: p99 answer time < 1 s', trigger.p99 < 1000);
		target('trigger: throughput >= 0.9x Webhook node', ratio >= 0.9);
		target('trigger: executions == distinct callbacks', trigger.executions === CALLBACKS);
		console.log(`\nload average after: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
	} catch (error) {
		console.error(`bench failed: ${error.stack ?? error}`);
		exitCode = 1;
	} finally {
		await host.stop();
		fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
	}
	return exitCode;
}

main().then((code) => process.exit(code));
