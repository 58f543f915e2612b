'use strict';
/**
 * The package in n8n queue mode with 1 and then 2 workers (dev/n8n-host/queue-cluster: PostgreSQL, Redis,
 * main, two webhook processes behind one round-robin URL). Prints figures; asserts nothing about time.
 *
 *   1. Images: 8 executions started through a Webhook node, each generating 5 images (40 items) against the
 *      simulator at 200 ms latency, downloaded into the database binary store. Wall time from the first
 *      start request until the last execution stopped (n8n's own stoppedAt), executions per second.
 *   2. Callbacks: 200 distinct callbacks at 20 concurrent into the Media Gateway Trigger through the
 *      balancer: p50/p99 answer time, wall time until the 200th execution stopped, executions per second.
 *      Then the same 200 again as the gateway's retries: how many started a second execution.
 *
 *   npm run bench:queue        (Node 24 on PATH: source scripts/toolchain.sh; needs dist/ and
 *                               dev/n8n-host/install.sh; installs PostgreSQL and Redis if missing)
 * BENCH_WORKER_CONCURRENCY sets each worker's --concurrency (n8n's default 10).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { N8nHost } = require('../dev/n8n-host/host');
const { QueueCluster } = require('../dev/n8n-host/queue-cluster');
const { startSimulator } = require('../dev/simulator');
const { example, localized } = require('../dev/examples');
const { videoCallback, postJson } = require('../dev/gateway-callbacks');
const { mapLimit, quantile } = require('../dev/load-generation');
const { setUpOwner } = require('../dev/n8n-host/rest');

const { RUNS, fmt, medianRun, runBench } = require('./common');

const REPO = path.resolve(__dirname, '..');
const EXECUTIONS = 8;
const ITEMS_PER_EXECUTION = 5;
const LATENCY_MS = 200;
const CALLBACKS = 200;
const CALLBACK_CONCURRENCY = 20;
const WORKER_CONCURRENCY = Math.max(1, Number(process.env.BENCH_WORKER_CONCURRENCY) || 10);

const IMAGE_WF = 'benchQueueImages';
const IMAGE_PATH = 'bench-queue-images';

/** Webhook → Code (5 prompts from the body's batch number) → Image Generate with download. */
function imageWorkflow() {
	return {
		id: IMAGE_WF,
		name: 'bench: queue-mode images',
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {
			Start: { main: [[{ node: 'Five prompts', type: 'main', index: 0 }]] },
			'Five prompts': { main: [[{ node: 'Generate image', type: 'main', index: 0 }]] },
		},
		nodes: [
			{
				id: crypto.randomUUID(),
				name: 'Start',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: crypto.randomUUID(),
				parameters: {
					httpMethod: 'POST',
					path: IMAGE_PATH,
					responseMode: 'onReceived',
					options: {},
				},
			},
			{
				id: crypto.randomUUID(),
				name: 'Five prompts',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: {
					jsCode: `const batch = $input.first().json.body.batch;\nreturn Array.from({ length: ${ITEMS_PER_EXECUTION} }, (_, i) => ({ json: { prompt: 'bench batch ' + batch + ' image ' + i } }));`,
				},
			},
			{
				id: crypto.randomUUID(),
				name: 'Generate image',
				type: 'n8n-nodes-media-gateway.mediaGatewayImage',
				typeVersion: 1,
				position: [440, 0],
				credentials: { mediaGatewayApi: { id: 'mediaGatewayDemo', name: 'Media Gateway (demo)' } },
				parameters: {
					operation: 'generate',
					prompt: '={{ $json.prompt }}',
					aspectRatio: 'ASPECT_1_1',
					additionalFields: {},
					options: { download: true, binaryPropertyName: 'data' },
				},
			},
		],
	};
}

const loadavg = () =>
	os
		.loadavg()
		.map((n) => n.toFixed(2))
		.join(' ');

/** Polls main's execution records until `count` executions of `workflowId` beyond `before` have stopped. */
async function stoppedExecutions(cluster, workflowId, before, count, timeoutMs = 300000) {
	const list = await cluster.main.waitForExecutions(
		(l) => l.filter((e) => !before.has(e.id) && e.stoppedAt).length >= count,
		{ workflowId, timeoutMs, intervalMs: 250 },
	);
	return list.filter((e) => !before.has(e.id));
}

async function measureImages(cluster) {
	const before = new Set(
		(await cluster.main.executions({ workflowId: IMAGE_WF })).map((e) => e.id),
	);
	const t0 = Date.now();
	const answers = await Promise.all(
		Array.from({ length: EXECUTIONS }, (_, batch) =>
			postJson(cluster.webhookUrl(IMAGE_PATH), { batch }),
		),
	);
	if (answers.some((a) => a.status !== 200))
		throw new Error(`start answers: ${answers.map((a) => a.status)}`);
	const runs = await stoppedExecutions(cluster, IMAGE_WF, before, EXECUTIONS);
	const failed = runs.filter((e) => e.status !== 'success');
	if (failed.length > 0) throw new Error(`${failed.length} image executions did not succeed`);
	const items = runs.reduce((n, e) => n + (e.runData['Generate image']?.[0]?.items.length ?? 0), 0);
	if (items !== EXECUTIONS * ITEMS_PER_EXECUTION)
		throw new Error(`expected ${EXECUTIONS * ITEMS_PER_EXECUTION} images, got ${items}`);
	const ms = Math.max(...runs.map((e) => Date.parse(e.stoppedAt))) - t0;
	return { ms, perSecond: EXECUTIONS / (ms / 1000), items };
}

async function measureCallbacks(cluster, triggerUrl, triggerWf, round) {
	const before = new Set(
		(await cluster.main.executions({ workflowId: triggerWf })).map((e) => e.id),
	);
	const bodies = Array.from({ length: CALLBACKS }, (_, i) => videoCallback(`bench-${round}-${i}`));
	const t0 = Date.now();
	const answers = await mapLimit(bodies, CALLBACK_CONCURRENCY, (body) =>
		postJson(triggerUrl, body),
	);
	const bad = answers.filter((a) => a.status !== 200 || a.json?.ignored);
	if (bad.length > 0)
		throw new Error(`${bad.length} callbacks not accepted: ${bad[0].status} ${bad[0].text}`);
	const runs = await stoppedExecutions(cluster, triggerWf, before, CALLBACKS);
	const ms = Math.max(...runs.map((e) => Date.parse(e.stoppedAt))) - t0;
	const times = answers.map((a) => a.ms);

	// The gateway's retries of the same 200, in the same way: each one that gets through is a duplicate run.
	await new Promise((resolve) => setTimeout(resolve, 1000));
	const retries = await mapLimit(bodies, CALLBACK_CONCURRENCY, (body) =>
		postJson(triggerUrl, body),
	);
	const letThrough = retries.filter((a) => a.status === 200 && !a.json?.ignored).length;
	await new Promise((resolve) => setTimeout(resolve, 3000));
	const after = (await cluster.main.executions({ workflowId: triggerWf })).filter(
		(e) => !before.has(e.id),
	);
	return {
		ms,
		perSecond: CALLBACKS / (ms / 1000),
		p50: quantile(times, 0.5),
		p99: quantile(times, 0.99),
		max: Math.max(...times),
		executions: runs.length,
		duplicates: after.length - CALLBACKS,
		letThrough,
	};
}

async function main() {
	const apiKey = `bench-${crypto.randomBytes(6).toString('hex')}`;
	const sim = await startSimulator({ apiKey, port: 0, latencyMs: LATENCY_MS });
	const tarball = await N8nHost.packPackage(REPO);
	const cluster = new QueueCluster({
		tarball,
		workers: 1,
		webhooks: 2,
		workerConcurrency: WORKER_CONCURRENCY,
		logLevel: 'info',
	});
	const results = [];
	try {
		await cluster.prepare();
		await cluster.main.importCredentials([
			{
				id: 'mediaGatewayDemo',
				name: 'Media Gateway (demo)',
				type: 'mediaGatewayApi',
				data: { apiKey, baseUrl: sim.url },
			},
		]);
		const trigger = localized(example('callback-trigger'), cluster.webhookBaseUrl);
		const triggerNode = trigger.nodes.find(
			(n) => n.type === 'n8n-nodes-media-gateway.mediaGatewayTrigger',
		);
		// The example ships without a secret: one per run. The callbacks below are invented (no task on the
		// simulator), so video callbacks are not confirmed with the gateway here.
		triggerNode.parameters.secretToken = crypto.randomBytes(24).toString('base64url');
		triggerNode.parameters.confirmVideoCallbacks = false;
		await cluster.main.importWorkflows([imageWorkflow(), trigger]);
		await cluster.main.publish([IMAGE_WF, trigger.id]);
		await cluster.start();
		await setUpOwner(cluster.main.url);
		const triggerUrl = `${cluster.webhookUrl(`${triggerNode.webhookId}/webhook`)}?token=${triggerNode.parameters.secretToken}`;

		// Warm-up: n8n's first executions pay for lazy loading (task runner, node types, DB pools).
		await measureImages(cluster);
		for (const workers of [1, 2]) {
			if (cluster.workers.length < workers) await cluster.addWorker();
			const images = await medianRun(() => measureImages(cluster));
			const callbacks = await measureCallbacks(cluster, triggerUrl, trigger.id, `w${workers}`);
			results.push({ workers, images, callbacks, load: loadavg() });
		}
	} finally {
		await cluster.stop().catch((error) => console.error(`cluster stop: ${error.message}`));
		await sim.close();
		fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
	}

	console.log(
		`n8n queue mode: main + N workers (--concurrency=${WORKER_CONCURRENCY}) + 2 webhook processes behind one URL, PostgreSQL, Redis`,
	);
	for (const { workers, images, callbacks, load } of results) {
		console.log(`\n${workers} worker${workers > 1 ? 's' : ''} (load average ${load})`);
		console.log(
			`  images: ${EXECUTIONS} executions x ${ITEMS_PER_EXECUTION} items, ${LATENCY_MS} ms latency, downloaded: ` +
				`wall ${fmt(images.ms)}, ${images.perSecond.toFixed(2)} executions/s ` +
				`(median of ${RUNS}: ${images.runs.map((r) => fmt(r.ms)).join(', ')})`,
		);
		console.log(
			`  callbacks: ${CALLBACKS} at ${CALLBACK_CONCURRENCY} concurrent: wall ${fmt(callbacks.ms)}, ` +
				`${callbacks.perSecond.toFixed(1)} executions/s, answer p50 ${callbacks.p50.toFixed(0)} ms, ` +
				`p99 ${callbacks.p99.toFixed(0)} ms, max ${callbacks.max.toFixed(0)} ms`,
		);
		console.log(
			`  retries of the same ${CALLBACKS}: ${callbacks.letThrough} accepted again, ` +
				`${callbacks.duplicates} duplicate executions`,
		);
	}
	const [one, two] = results;
	console.log(
		`\n2 workers vs 1: images ${(one.images.ms / two.images.ms).toFixed(2)}x faster, ` +
			`callbacks ${(one.callbacks.ms / two.callbacks.ms).toFixed(2)}x faster (wall time ratios, same run)`,
	);
}

runBench(main);
