'use strict';
/** What the benchmark scripts share: run count, formatting, verdicts, and a clean exit. */
const { rmSync } = require('node:fs');
const os = require('node:os');

/** Each setting runs this many times; the median counts (BENCH_RUNS overrides). */
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS) || 3);

const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
const signed = (n) => `${n >= 0 ? '+' : ''}${n.toFixed(1)}`;
const verdict = (ok) => (ok ? 'PASS' : 'MISS');

/** The run with the median `ms`, with all runs beside it. */
function median(runs) {
	const sorted = [...runs].sort((a, b) => a.ms - b.ms);
	return { ...sorted[Math.floor(sorted.length / 2)], runs };
}

/** Runs `measure` RUNS times; returns the run with the median `ms` and all runs. */
async function medianRun(measure) {
	const runs = [];
	for (let i = 0; i < RUNS; i++) runs.push(await measure());
	return median(runs);
}

/** The machine's load averages (1, 5, 15 min), printed beside figures measured on a shared machine. */
const loadAverage = () =>
	os
		.loadavg()
		.map((l) => l.toFixed(2))
		.join(' ');

/**
 * Runs a benchmark's main(): exit 0 whatever the timings (they are figures, not assertions), 1 only
 * when the benchmark itself failed. The harness keeps n8n's user folder in a temp dir; jest removes
 * it, a plain script must.
 */
function runBench(main) {
	main()
		.finally(() => {
			if (process.env.N8N_USER_FOLDER)
				rmSync(process.env.N8N_USER_FOLDER, { recursive: true, force: true });
		})
		.then(
			() => process.exit(0),
			(error) => {
				console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
				process.exit(1);
			},
		);
}

module.exports = { RUNS, fmt, signed, verdict, median, medianRun, loadAverage, runBench };
