'use strict';
/**
 * Shared setup for end-to-end tests in a real n8n: the gateway simulator in this process, the built
 * package installed into a throwaway n8n the way n8n installs community packages, the demo credential
 * and every examples/*.json imported. One stack per test file: each n8n CLI call costs seconds.
 *
 *   const { startStack, runWorkflow } = require('./support');
 *   let stack;
 *   beforeAll(async () => { stack = await startStack({ simulator: { videoCompleteAfterMs: 1000 } }); });
 *   afterAll(async () => { await stack?.stop(); });
 *   const run = await runWorkflow(stack.host, stack.examples['video-pro-wait'].id);
 *   run.nodes['Create pro video'].items[0].json.state; // 'succeeded'
 *
 * API
 * - startStack(options) → Promise<Stack>. Options (all optional):
 *     simulator    options for startSimulator (port 0; apiKey defaults to a random 'e2e-key-…')
 *     host         extra N8nHost constructor options ({ env, logLevel, echo, onLog, keep })
 *     credentials  more credentials to import, in the same CLI call as the demo one: an array, or
 *                  (sim) => array when they need the simulator's URL
 *     workflows    more workflows to import, in the same CLI call as the examples
 *     publish      workflow ids to publish after the import (before host.start())
 *   Stack: { host, sim, apiKey, credential, examples, timings, stop() }
 *     examples  { '<file name without .json>': workflow } as imported (URLs rewritten, see loadExamples)
 *     stop()    stops n8n, closes the simulator and removes the packed tarball; safe to call twice
 *   On a failure inside startStack everything it started is stopped before the error is thrown.
 * - runWorkflow(host, workflowId) → host.execute() result plus
 *     nodes: { '<node name>': { items, error } } for the node's first run (items: [{json, binary, pairedItem}])
 * - loadExamples(n8nUrl), DEMO_CREDENTIAL_ID, DEMO_CREDENTIAL_NAME, EXAMPLES_DIR: from dev/examples.js
 */
const crypto = require('node:crypto');
const fsp = require('node:fs/promises');
const path = require('node:path');

const { N8nHost } = require('../../dev/n8n-host/host');
const { startSimulator } = require('../../dev/simulator');
const {
	loadExamples,
	DEMO_CREDENTIAL_ID,
	DEMO_CREDENTIAL_NAME,
	EXAMPLES_DIR,
} = require('../../dev/examples');

const REPO_ROOT = path.resolve(__dirname, '..', '..');

async function startStack({
	simulator = {},
	host: hostOptions = {},
	credentials = [],
	workflows = [],
	publish = [],
} = {}) {
	const timings = {};
	const apiKey = simulator.apiKey ?? `e2e-key-${crypto.randomBytes(12).toString('hex')}`;
	let sim;
	let host;
	let tarball;
	let stopped = false;
	const stop = async () => {
		if (stopped) return;
		stopped = true;
		const t0 = Date.now();
		// Each step runs even when an earlier one failed: a leftover n8n or server would keep jest alive.
		const results = await Promise.allSettled([
			host ? host.stop() : undefined,
			sim ? sim.close() : undefined,
			tarball ? fsp.rm(path.dirname(tarball), { recursive: true, force: true }) : undefined,
		]);
		timings.stop = Date.now() - t0;
		const failed = results.find((r) => r.status === 'rejected');
		if (failed) throw failed.reason;
	};

	try {
		let t0 = Date.now();
		sim = await startSimulator({ port: 0, ...simulator, apiKey });
		tarball = await N8nHost.packPackage(REPO_ROOT);
		timings.pack = Date.now() - t0;
		host = new N8nHost({ tarball, ...hostOptions });
		t0 = Date.now();
		await host.installPackage();
		timings.installPackage = Date.now() - t0;

		const credential = {
			id: DEMO_CREDENTIAL_ID,
			name: DEMO_CREDENTIAL_NAME,
			type: 'mediaGatewayApi',
			data: { apiKey, baseUrl: sim.url },
		};
		t0 = Date.now();
		const extra = typeof credentials === 'function' ? credentials(sim) : credentials;
		await host.importCredentials([credential, ...extra]);
		timings.importCredentials = Date.now() - t0;

		const examples = loadExamples(host.url);
		t0 = Date.now();
		await host.importWorkflows([...Object.values(examples), ...workflows]);
		timings.importWorkflows = Date.now() - t0;
		if (publish.length > 0) {
			t0 = Date.now();
			await host.publish(publish);
			timings.publish = Date.now() - t0;
		}
		return { host, sim, apiKey, credential, examples, timings, stop };
	} catch (error) {
		await stop().catch(() => undefined);
		throw error;
	}
}

/** host.execute() plus each node's first run as { items, error }, keyed by node name. */
async function runWorkflow(host, workflowId) {
	const result = await host.execute(workflowId);
	const nodes = {};
	for (const [name, runs] of Object.entries(result.data)) {
		nodes[name] = { items: runs[0]?.items ?? [], error: runs[0]?.error ?? null };
	}
	return { ...result, nodes };
}

module.exports = {
	startStack,
	runWorkflow,
	loadExamples,
	DEMO_CREDENTIAL_ID,
	DEMO_CREDENTIAL_NAME,
	EXAMPLES_DIR,
};
