'use strict';
/**
 * Prints how long Media Gateway Video → Create with "Wait Until Done" takes for 20 items whose
 * tasks each render for 2 s on the gateway simulator (poll interval 0.25 s), with Concurrency 1
 * and with the default. Waiting does not hold a concurrency slot, so both should stay close to
 * one task's time. Runs through n8n's real execution engine (dev/harness/runNode.ts); each
 * setting runs BENCH_RUNS times (default 3), the median counts. Prints figures only; exits 0
 * whatever the timings (1 only if the node itself fails).
 *
 *   node -r ./dev/ts-register.js bench/video-wait.js
 */
const os = require('node:os');

// Explicit .ts: `X.node` alone would resolve to the node's codex file X.node.json.
const { startSimulator } = require('../dev/simulator');
const { RUNS, fmt, medianRun, runBench, verdict } = require('./common');
const { runNode } = require('../dev/harness/runNode.ts');
const { MediaGatewayVideo } = require('../nodes/MediaGatewayVideo/MediaGatewayVideo.node.ts');
const { MediaGatewayApi } = require('../credentials/MediaGatewayApi.credentials.ts');
const { DEFAULT_CONCURRENCY } = require('../nodes/shared/execution/itemRunner.ts');

const API_KEY = 'bench-video-key';
const ITEMS = 20;
const TASK_MS = 2000;
const POLL_SECONDS = 0.25;
const TARGET_MS = 1.5 * TASK_MS;

async function timedRun(sim, options, items = ITEMS) {
	sim.reset();
	const started = process.hrtime.bigint();
	const result = await runNode({
		nodeType: new MediaGatewayVideo(),
		credentialTypes: [new MediaGatewayApi()],
		credentials: { mediaGatewayApi: { apiKey: API_KEY, baseUrl: sim.url } },
		parameters: {
			operation: 'create',
			model: 'vidmodel',
			prompt: '={{ $json.prompt }}',
			size: '1280x720',
			duration: 5,
			referenceImageSource: 'none',
			callbackUrl: '',
			completion: 'poll',
			pollIntervalSeconds: POLL_SECONDS,
			waitTimeoutMinutes: 5,
			options,
		},
		input: Array.from({ length: items }, (_, i) => ({ json: { prompt: `bench video ${i}` } })),
	});
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	if (result.error) throw new Error(`run failed: ${result.error.message}`);
	const done = result.items.filter((item) => item.json.state === 'succeeded').length;
	if (done !== items) throw new Error(`expected ${items} finished videos, got ${done}`);
	const polls = sim.requests.filter((r) => r.method === 'GET').length;
	return { ms, polls };
}

async function main() {
	const sim = await startSimulator({ apiKey: API_KEY, port: 0, videoCompleteAfterMs: TASK_MS });
	try {
		// Warm-up: n8n's container, binary store and module loading are set up once, outside the timings.
		sim.reset();
		await timedRun(sim, {}, 1);

		const serial = await medianRun(() => timedRun(sim, { concurrency: 1 }));
		const parallel = await medianRun(() => timedRun(sim, {}));
		const runs = (r) =>
			`median of ${RUNS}: ${r.runs.map((x) => fmt(x.ms)).join(', ')}; ${r.polls} polls`;

		console.log(
			`Media Gateway Video → Create, Wait Until Done: ${ITEMS} items, each task ${fmt(TASK_MS)}, poll every ${POLL_SECONDS} s`,
		);
		console.log(`  machine: ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(2)}`);
		console.log(`  concurrency 1:            ${fmt(serial.ms)}  (${runs(serial)})`);
		console.log(
			`  concurrency ${DEFAULT_CONCURRENCY} (default):  ${fmt(parallel.ms)}  (${runs(parallel)})`,
		);
		console.log(`  ratio (1 / default):      ${(serial.ms / parallel.ms).toFixed(2)}x`);
		console.log(
			`  one task: ${fmt(TASK_MS)}; all ${ITEMS} one after another would take ${fmt(ITEMS * TASK_MS)}`,
		);
		console.log(
			`  target: default <= 1.5 x one task (${fmt(TARGET_MS)}) ... ${verdict(parallel.ms <= TARGET_MS)}`,
		);
		console.log(
			`  (concurrency 1 <= ${fmt(TARGET_MS)} as well ........... ${verdict(serial.ms <= TARGET_MS)})`,
		);
	} finally {
		await sim.close();
	}
}

runBench(main);
