'use strict';
/**
 * Completion → "Wait for Callback" on both n8n lines, in a real n8n over real HTTP: on n8n 2.x the published
 * example parks its execution and the gateway's callback finishes it; on n8n 1.x (jest.e2e.n8n1.config.js)
 * the node refuses before anything is sent to the gateway, because 1.x ignores a stack entry's resumeError
 * and claims a waiting execution without a condition (README, "Wait for Callback details").
 * Run: npx jest -c jest.e2e.config.js --runInBand test/e2e/wait-for-callback-lines.test.js   (2.x)
 *      npx jest -c jest.e2e.n8n1.config.js --runInBand test/e2e/wait-for-callback-lines.test.js   (1.x)
 */
const fs = require('node:fs');
const path = require('node:path');
const { N8nHost } = require('../../dev/n8n-host/host');
const { startSimulator } = require('../../dev/simulator');
const { waitTools } = require('./wait-support');

const REPO = path.resolve(__dirname, '..', '..');
const API_KEY = 'lines-e2e-key-3b7d91c0a4';
const LINE = process.env.N8N_HOST_LINE || '2.x';
const example = JSON.parse(
	fs.readFileSync(path.join(REPO, 'examples', 'video-batch-wait-for-callback.json'), 'utf8'),
);
const VIDEO_NODE = 'Render videos';

let host;
let sim;
let tarballDir;
let tools;

beforeAll(async () => {
	sim = await startSimulator({ apiKey: API_KEY, port: 0, proCompleteAfterMs: 2000 });
	const tarball = await N8nHost.packPackage(REPO);
	tarballDir = path.dirname(tarball);
	host = new N8nHost({ tarball });
	tools = waitTools(host, (p) => host.webhookUrl(p));
	await host.installPackage();
	await host.importCredentials([
		{
			id: 'mediaGatewayDemo',
			name: 'Media Gateway (demo)',
			type: 'mediaGatewayApi',
			data: { apiKey: API_KEY, baseUrl: sim.url },
		},
	]);
	await host.importWorkflows([example]);
	await host.publish([example.id]);
	await host.start();
}, 300000);

afterAll(async () => {
	if (host) await host.stop();
	if (sim) await sim.close();
	if (tarballDir) fs.rmSync(tarballDir, { recursive: true, force: true });
}, 60000);

test(`Wait for Callback with 3 items on n8n ${LINE}`, async () => {
	const prompts = ['Line clip 0', 'Line clip 1', 'Line clip 2'];
	const { executionId } = await tools.startRun(example, { prompts });
	const done = await tools.waitForStatus(example.id, executionId, ['success', 'error'], {
		timeoutMs: 120000,
	});
	if (LINE === '1.x') {
		// Refused before anything was created: no task, no wait.
		expect(done.execution.status).toBe('error');
		expect(done.seen).not.toContain('waiting');
		// 1.x keeps the node's error on its run (resultData.error may be absent).
		const error =
			done.execution.runData[VIDEO_NODE].at(-1).error ?? done.execution.data.resultData.error;
		expect(error.message).toBe('Completion "Wait for Callback" needs n8n 2.x');
		expect(error.description).toContain('Nothing was sent to the gateway');
		expect(sim.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
		return;
	}
	expect(done.seen).toContain('waiting');
	expect(done.execution.status).toBe('success');
	expect(
		done.execution.runData[VIDEO_NODE][0].items.map((i) => [i.json.state, i.pairedItem]),
	).toEqual(prompts.map((_, item) => ['succeeded', { item }]));
	expect(sim.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos')).toHaveLength(
		3,
	);
}, 180000);

test('n8n never printed the API key', () => {
	expect(host.logs()).not.toContain(API_KEY);
});
