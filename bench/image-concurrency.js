'use strict';
/**
 * Prints how much the Concurrency option speeds up Media Gateway Image → Generate.
 * 50 items against the gateway simulator with 200 ms latency per answer, download off, run through
 * n8n's real execution engine (dev/harness/runNode.ts). Each setting runs BENCH_RUNS times
 * (default 3) and the median counts, because timers on a busy machine jitter by tens of ms.
 * Prints figures only; exits 0 whatever the timings (1 only if the node itself fails).
 *
 *   node -r ./dev/ts-register.js bench/image-concurrency.js
 */
const os = require('node:os');

// Explicit .ts: `X.node` alone would resolve to the node's codex file X.node.json.
const { startSimulator } = require('../dev/simulator');
const { RUNS, fmt, medianRun, runBench, signed, verdict } = require('./common');
const { runNode } = require('../dev/harness/runNode.ts');
const { MediaGatewayImage } = require('../nodes/MediaGatewayImage/MediaGatewayImage.node.ts');
const { MediaGatewayApi } = require('../credentials/MediaGatewayApi.credentials.ts');
const { DEFAULT_CONCURRENCY } = require('../nodes/shared/execution/itemRunner.ts');

const API_KEY = 'bench-image-key';
const ITEMS = 50;
const LATENCY_MS = 200;

async function timedRun(sim, options) {
	const started = process.hrtime.bigint();
	const result = await runNode({
		nodeType: new MediaGatewayImage(),
		credentialTypes: [new MediaGatewayApi()],
		credentials: { mediaGatewayApi: { apiKey: API_KEY, baseUrl: sim.url } },
		parameters: {
			operation: 'generate',
			prompt: '={{ $json.prompt }}',
			aspectRatio: 'ASPECT_1_1',
			options: { download: false, ...options },
		},
		input: Array.from({ length: ITEMS }, (_, i) => ({ json: { prompt: `bench image ${i}` } })),
	});
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	if (result.error) throw new Error(`run failed: ${result.error.message}`);
	if (result.items.length !== ITEMS)
		throw new Error(`expected ${ITEMS} items, got ${result.items.length}`);
	return ms;
}

/**
 * The same 50 requests sent by 5 plain fetch loops, without n8n: the floor this machine reaches
 * right now, so node overhead can be told apart from timer jitter on a busy machine.
 */
async function rawRun(sim) {
	const started = process.hrtime.bigint();
	let next = 0;
	const worker = async () => {
		while (next < ITEMS) {
			const i = next++;
			const response = await fetch(`${sim.url}/imgmodel/v1/imgmodel-v3/generate`, {
				method: 'POST',
				headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' },
				body: JSON.stringify({
					prompt: `bench image ${i}`,
					aspect_ratio: 'ASPECT_1_1',
					model: 'V_3',
				}),
			});
			if (response.status !== 200) throw new Error(`raw request failed: HTTP ${response.status}`);
			await response.json();
		}
	};
	await Promise.all(Array.from({ length: DEFAULT_CONCURRENCY }, worker));
	return Number(process.hrtime.bigint() - started) / 1e6;
}

/** Median of RUNS runs of a measurement that returns milliseconds. */
async function medianOf(sim, options, run = timedRun) {
	const { ms, runs } = await medianRun(async () => ({ ms: await run(sim, options) }));
	return { median: ms, times: runs.map((r) => r.ms) };
}

async function main() {
	const sim = await startSimulator({ apiKey: API_KEY, port: 0, latencyMs: 0 });
	try {
		// Warm-up without latency: n8n's container, binary store and module loading are set up once.
		await timedRun(sim, {});
		sim.setLatency(LATENCY_MS);

		const serial = await medianOf(sim, { concurrency: 1 });
		const parallel = await medianOf(sim, {});
		const raw = await medianOf(sim, {}, rawRun);
		const ratio = serial.median / parallel.median;
		const idealMs = Math.ceil(ITEMS / DEFAULT_CONCURRENCY) * LATENCY_MS;
		const deviation = ((parallel.median - idealMs) / idealMs) * 100;
		const runs = (r) => `median of ${RUNS}: ${r.times.map(fmt).join(', ')}`;

		console.log(
			`Media Gateway Image → Generate: ${ITEMS} items, simulator latency ${LATENCY_MS} ms, download off`,
		);
		console.log(`  machine: ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(2)}`);
		console.log(`  concurrency 1:            ${fmt(serial.median)}  (${runs(serial)})`);
		console.log(
			`  concurrency ${DEFAULT_CONCURRENCY} (default):  ${fmt(parallel.median)}  (${runs(parallel)})`,
		);
		console.log(
			`  floor: ${DEFAULT_CONCURRENCY} plain fetch loops, no n8n: ${fmt(raw.median)}  (${runs(raw)})`,
		);
		console.log(`  speed-up (1 / default):   ${ratio.toFixed(2)}x`);
		console.log(
			`  ideal ceil(${ITEMS}/${DEFAULT_CONCURRENCY}) * ${LATENCY_MS} ms = ${fmt(idealMs)}; the default deviates ${signed(deviation)}% (the no-n8n floor ${signed(((raw.median - idealMs) / idealMs) * 100)}%)`,
		);
		console.log(`  target: default >= 4x faster than concurrency 1 ... ${verdict(ratio >= 4)}`);
		console.log(
			`  target: default within 10% of the ideal .......... ${verdict(Math.abs(deviation) <= 10)}`,
		);
	} finally {
		await sim.close();
	}
}

runBench(main);
