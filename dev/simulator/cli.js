#!/usr/bin/env node
'use strict';
/**
 * Runs the gateway simulator as a process (demo, e2e tests, benchmarks).
 *   node dev/simulator/cli.js --port 0 --api-key KEY --latency 0 --time-scale 1
 * Prints one JSON line {"url":"http://127.0.0.1:PORT"} once listening; exits cleanly on SIGINT/SIGTERM.
 * The API key is never printed.
 */
const { startSimulator } = require('./server');

const USAGE = `Usage: node dev/simulator/cli.js [options]
  --host H            listen address (default 127.0.0.1)
  --port N            port, 0 = any free port (default 0)
  --api-key KEY       bearer key to accept (default $SIM_API_KEY or sim-key)
  --latency MS        latency added to every API response (default 0)
  --time-scale X      multiplies callback timings: 5 s answer limit, retries after 10/30/60 s (default 1)
  --video-ms MS       time until a standard video task completes (default 1500)
  --pro-ms MS         time until a vidmodel-pro task completes (default 2 x --video-ms)
  --public-url URL    base of returned file URLs (default the listening URL)`;

function parseArgs(argv) {
	const opts = {};
	const number = (name, v) => {
		const n = Number(v);
		if (v === undefined || !Number.isFinite(n) || n < 0)
			throw new Error(`${name} needs a number >= 0`);
		return n;
	};
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		const [flag, inline] = arg.includes('=')
			? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
			: [arg, undefined];
		const value = () => (inline !== undefined ? inline : argv[++i]);
		switch (flag) {
			case '--host':
				opts.host = value();
				break;
			case '--port':
				opts.port = number(flag, value());
				break;
			case '--api-key':
				opts.apiKey = value();
				break;
			case '--latency':
				opts.latencyMs = number(flag, value());
				break;
			case '--time-scale':
				opts.callbackTimeScale = number(flag, value());
				break;
			case '--video-ms':
				opts.videoCompleteAfterMs = number(flag, value());
				break;
			case '--pro-ms':
				opts.proCompleteAfterMs = number(flag, value());
				break;
			case '--public-url':
				opts.publicUrl = value();
				break;
			case '--help':
			case '-h':
				process.stdout.write(`${USAGE}\n`);
				process.exit(0);
				break;
			default:
				throw new Error(`unknown option ${flag}`);
		}
	}
	if (opts.apiKey === undefined) opts.apiKey = process.env.SIM_API_KEY || 'sim-key';
	return opts;
}

async function main() {
	let opts;
	try {
		opts = parseArgs(process.argv.slice(2));
	} catch (e) {
		process.stderr.write(`${e.message}\n${USAGE}\n`);
		process.exit(2);
	}
	const sim = await startSimulator(opts);
	process.stdout.write(`${JSON.stringify({ url: sim.url })}\n`);
	let stopping = false;
	const stop = () => {
		if (stopping) return;
		stopping = true;
		sim.close().then(() => process.exit(0));
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((e) => {
	process.stderr.write(`simulator failed to start: ${e.message}\n`);
	process.exit(1);
});
