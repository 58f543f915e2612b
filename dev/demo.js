#!/usr/bin/env node
'use strict';
/**
 * The demo behind `npm start` (scripts/start.sh builds the package and installs n8n first):
 * a real n8n on 127.0.0.1 with this package installed the way n8n installs community packages, the
 * credential "Media Gateway (demo)" and every examples/*.json imported, one example run, and the
 * editor left open until Ctrl-C.
 *
 * Gateway: the in-repo simulator (a child process with a random key), or a real gateway when both
 * MEDIA_GATEWAY_BASE_URL and MEDIA_GATEWAY_API_KEY are set. With a real gateway the sample run is
 * skipped unless MEDIA_GATEWAY_DEMO_RUN=1, because it bills three images. The key is never printed.
 *
 * n8n's user folder lives in .cache/demo/ (wiped at each start, kept after Ctrl-C for inspection).
 */
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

const { N8nHost } = require('./n8n-host/host');
const { DEMO_CREDENTIAL_ID, DEMO_CREDENTIAL_NAME, loadExamples } = require('./examples');

const REPO_ROOT = path.resolve(__dirname, '..');
const DEMO_DIR = path.join(REPO_ROOT, '.cache', 'demo');
const SAMPLE_EXAMPLE = 'image-generate-download';
const TRIGGER_TYPES = new Set([
	'n8n-nodes-media-gateway.mediaGatewayTrigger',
	'n8n-nodes-base.webhook',
]);

const say = (line = '') => process.stdout.write(`${line}\n`);
const warn = (line) => process.stderr.write(`${line}\n`);

/** Everything started so far, stopped in reverse by shutdown(). */
const state = { sim: null, host: null, tarballDir: null, stopping: null, started: false };

function chooseGateway() {
	const baseUrl = (process.env.MEDIA_GATEWAY_BASE_URL ?? '').trim();
	const apiKey = (process.env.MEDIA_GATEWAY_API_KEY ?? '').trim();
	if (baseUrl && apiKey) return { kind: 'gateway', baseUrl, apiKey };
	if (baseUrl || apiKey) {
		throw new Error(
			'Set both MEDIA_GATEWAY_BASE_URL and MEDIA_GATEWAY_API_KEY to use a real gateway, or neither to use the local simulator.',
		);
	}
	return { kind: 'simulator', apiKey: `demo-${crypto.randomBytes(18).toString('base64url')}` };
}

/** The simulator as a child process; resolves with its URL once it prints it. */
function startSimulatorProcess(apiKey) {
	return new Promise((resolve, reject) => {
		// The key travels in the environment, not in argv, where `ps` would show it.
		const child = spawn(
			process.execPath,
			[path.join(REPO_ROOT, 'dev/simulator/cli.js'), '--port', '0'],
			{
				cwd: REPO_ROOT,
				env: { ...process.env, SIM_API_KEY: apiKey },
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		state.sim = child;
		let stderr = '';
		child.stderr.on('data', (chunk) => {
			stderr += chunk;
		});
		const timer = setTimeout(
			() => reject(new Error('the simulator did not start within 20 s')),
			20000,
		);
		const lines = readline.createInterface({ input: child.stdout });
		lines.once('line', (line) => {
			clearTimeout(timer);
			try {
				resolve(JSON.parse(line).url);
			} catch {
				reject(new Error(`the simulator printed ${line.slice(0, 200)} instead of its URL`));
			}
		});
		child.once('exit', (code, signal) => {
			clearTimeout(timer);
			if (!state.stopping) {
				reject(
					new Error(
						`the simulator exited (code ${code}, signal ${signal}): ${stderr.trim().slice(0, 500)}`,
					),
				);
				if (state.started) {
					warn(
						`The gateway simulator stopped unexpectedly (code ${code}, signal ${signal}); stopping the demo.`,
					);
					shutdown(1);
				}
			}
		});
	});
}

function humanBytes(bytes) {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
	return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function runSample(host, workflow) {
	say(`Running "${workflow.name}" once…`);
	const t0 = Date.now();
	const result = await host.execute(workflow.id);
	const seconds = ((Date.now() - t0) / 1000).toFixed(1);
	const imageNode = workflow.nodes.find(
		(n) => n.type === 'n8n-nodes-media-gateway.mediaGatewayImage',
	);
	const run = imageNode ? result.data[imageNode.name]?.[0] : undefined;
	if (result.exitCode !== 0 || !run) {
		const error = run?.error ?? result.error;
		say(`  It failed after ${seconds} s: ${error?.message ?? result.status}`);
		if (error?.description) say(`  ${error.description}`);
		return;
	}
	say(`  ${run.items.length} image(s) in ${seconds} s (n8n CLI start-up included):`);
	for (const [index, item] of run.items.entries()) {
		const { json } = item;
		const files = Object.entries(item.binary ?? {}).map(
			([field, meta]) =>
				`${meta.mimeType} ${humanBytes(meta.bytes ?? 0)} in binary field "${field}"`,
		);
		say(`  ${index + 1}. “${json.prompt}”`);
		say(
			`     ${json.resolution ?? '?'}, seed ${json.seed ?? '?'}, ${json.isImageSafe === false ? 'flagged unsafe' : 'safe'}` +
				`${files.length ? `, ${files.join(', ')}` : ''} (paired with input item ${item.pairedItem?.item ?? '?'})`,
		);
	}
}

/** The placeholder the examples carry where the trigger's secret token goes in a Callback URL. */
const SECRET_PLACEHOLDER = 'YOUR_SECRET_TOKEN';

/**
 * The examples ship without a secret (the trigger's Secret Token is empty, Callback URLs carry a
 * placeholder); the demo fills in one generated for this run, so no two installations share one.
 */
function withCallbackSecret(examples, secret) {
	const fill = (value) => {
		if (typeof value === 'string') return value.split(SECRET_PLACEHOLDER).join(secret);
		if (Array.isArray(value)) return value.map(fill);
		if (value && typeof value === 'object')
			return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
		return value;
	};
	const filled = fill(examples);
	for (const workflow of Object.values(filled)) {
		for (const node of workflow.nodes) {
			const parameters = node.parameters ?? {};
			if (
				node.type === 'n8n-nodes-media-gateway.mediaGatewayTrigger' &&
				parameters.authentication !== 'none' &&
				!parameters.secretToken
			) {
				parameters.secretToken = secret;
			}
		}
	}
	return filled;
}

/** The production URLs of a published workflow's trigger nodes. */
function triggerUrls(host, workflow) {
	const urls = [];
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-media-gateway.mediaGatewayTrigger' && node.webhookId) {
			const { authentication, queryParameterName } = node.parameters ?? {};
			// The secret token stays in the node; say where it goes instead of printing it.
			const token =
				authentication === 'queryToken'
					? `?${queryParameterName || 'token'}=<the node's Secret Token>`
					: '';
			urls.push(`POST ${host.webhookUrl(`${node.webhookId}/webhook`)}${token}`);
		} else if (node.type === 'n8n-nodes-base.webhook' && node.parameters?.path) {
			urls.push(`${node.parameters.httpMethod ?? 'GET'} ${host.webhookUrl(node.parameters.path)}`);
		}
	}
	return urls;
}

async function main() {
	const gateway = chooseGateway();
	say('Media Gateway nodes demo: a real n8n with this package installed. Ctrl-C stops it.');
	let baseUrl = gateway.baseUrl;
	if (gateway.kind === 'simulator') {
		baseUrl = await startSimulatorProcess(gateway.apiKey);
		say(
			`Gateway: the local simulator at ${baseUrl} (a random API key, stored only in the demo credential).`,
		);
	} else {
		say(
			`Gateway: ${baseUrl} (MEDIA_GATEWAY_BASE_URL; the API key comes from MEDIA_GATEWAY_API_KEY).`,
		);
	}

	fs.rmSync(DEMO_DIR, { recursive: true, force: true });
	fs.mkdirSync(DEMO_DIR, { recursive: true });
	const tarball = await N8nHost.packPackage(REPO_ROOT);
	state.tarballDir = path.dirname(tarball);
	const host = new N8nHost({ tarball, keep: true, userFolder: path.join(DEMO_DIR, 'n8n') });
	state.host = host;
	say(`n8n user folder: ${path.relative(REPO_ROOT, host.userFolder)}`);

	say('Installing the package into n8n and importing the credential and the examples…');
	await host.installPackage();
	fs.rmSync(state.tarballDir, { recursive: true, force: true });
	state.tarballDir = null;
	await host.importCredentials([
		{
			id: DEMO_CREDENTIAL_ID,
			name: DEMO_CREDENTIAL_NAME,
			type: 'mediaGatewayApi',
			data: { apiKey: gateway.apiKey, baseUrl },
		},
	]);
	const examples = withCallbackSecret(
		loadExamples(host.url),
		crypto.randomBytes(24).toString('base64url'),
	);
	const workflows = Object.values(examples);
	await host.importWorkflows(workflows);
	say(
		`  ${workflows.length} workflows: ${workflows.map((w) => w.name.replace(/^Media Gateway: /, '')).join('; ')}`,
	);

	const sample = examples[SAMPLE_EXAMPLE];
	if (sample && (gateway.kind === 'simulator' || process.env.MEDIA_GATEWAY_DEMO_RUN === '1')) {
		await runSample(host, sample);
	} else if (sample) {
		say(
			`Not running "${sample.name}" against a real gateway (it bills 3 images); MEDIA_GATEWAY_DEMO_RUN=1 runs it.`,
		);
	}

	const published = workflows.filter((w) => w.nodes.some((n) => TRIGGER_TYPES.has(n.type)));
	if (published.length > 0) {
		say(`Publishing ${published.map((w) => `"${w.name}"`).join(', ')}…`);
		await host.publish(published.map((w) => w.id));
	}

	say('Starting n8n (10-40 s)…');
	const { activations } = await host.start({ allowActivationErrors: true });
	for (const failed of activations.filter((a) => a.status !== 'activated')) {
		warn(`  Workflow ${failed.workflowId} could not be activated: ${failed.errorMessage}`);
	}
	state.started = true;
	// n8n stopping on its own (crash, port taken away) ends the demo instead of leaving it hanging.
	setInterval(() => {
		if (!state.stopping && !host.running) {
			warn('n8n exited unexpectedly; stopping the demo.');
			shutdown(1);
		}
	}, 2000).unref();
	// From now on only n8n's problems reach the terminal.
	host.onLog = (entry) => {
		if (entry.level === 'error' || entry.level === 'warn')
			warn(`[n8n ${entry.level}] ${entry.message.trim()}`);
	};

	say('');
	say(`n8n editor: ${host.url}/`);
	say(
		'Open it, set up the owner account (any e-mail and password; it stays on this machine), then open the workflows:',
	);
	say(
		`each uses the credential "${DEMO_CREDENTIAL_NAME}" and has a note explaining what it shows; click "Execute workflow".`,
	);
	for (const workflow of published) {
		for (const url of triggerUrls(host, workflow)) say(`  "${workflow.name}" listens at ${url}`);
	}
	say(`Press Ctrl-C to stop n8n${gateway.kind === 'simulator' ? ' and the simulator' : ''}.`);
}

/** Stops n8n (SIGTERM, then SIGKILL to its group) and the simulator by PID; exits with `code`. */
function shutdown(code) {
	if (state.stopping) return state.stopping;
	state.stopping = (async () => {
		if (state.host || state.sim) say('\nStopping…');
		const steps = [];
		if (state.host) steps.push(state.host.stop({ keep: true, graceMs: 10000 }));
		if (state.sim) steps.push(stopChild(state.sim));
		if (state.tarballDir)
			steps.push(fs.promises.rm(state.tarballDir, { recursive: true, force: true }));
		const results = await Promise.allSettled(steps);
		for (const r of results)
			if (r.status === 'rejected') warn(`  ${r.reason?.message ?? r.reason}`);
		if (state.host)
			say(
				`Stopped. n8n's data stays in ${path.relative(REPO_ROOT, state.host.userFolder)} until the next start.`,
			);
		process.exit(code);
	})();
	return state.stopping;
}

function stopChild(child) {
	if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
	return new Promise((resolve) => {
		const timer = setTimeout(() => {
			try {
				process.kill(child.pid, 'SIGKILL');
			} catch {
				// already gone
			}
		}, 5000);
		child.once('exit', () => {
			clearTimeout(timer);
			resolve();
		});
		try {
			process.kill(child.pid, 'SIGTERM');
		} catch {
			clearTimeout(timer);
			resolve();
		}
	});
}

// SIGHUP: a closed terminal must not leave n8n (its own process group) running.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	process.on(signal, () => {
		if (state.stopping) {
			say('Still stopping n8n…');
			return;
		}
		shutdown(0);
	});
}
// A closed terminal or pipe must not crash the demo halfway through stopping.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
// Whoever started the demo went away without a signal reaching it (e.g. `npm start` got SIGTERM and its
// `sh -c` died): stop rather than leave n8n and the simulator running as orphans.
const parentPid = process.ppid;
setInterval(() => {
	if (process.ppid !== parentPid && !state.stopping) {
		warn('The process that started the demo has gone; stopping.');
		shutdown(0);
	}
}, 1000).unref();

main().catch((error) => {
	if (state.stopping) return;
	warn(`\nThe demo failed: ${error?.message ?? error}`);
	shutdown(1);
});
