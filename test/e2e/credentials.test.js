'use strict';
/**
 * The Media Gateway API credential in a real n8n: the editor's "Test" button (POST /rest/credentials/test)
 * with the right key, a wrong key and an unreachable gateway, and a workflow run with a wrong key.
 * The key must never show up in an answer, an error or n8n's output.
 * Run: npx jest -c jest.e2e.config.js --runInBand test/e2e/credentials.test.js
 */
const net = require('node:net');
const { DEMO_CREDENTIAL_ID, DEMO_CREDENTIAL_NAME, runWorkflow, startStack } = require('./support');

const WRONG_KEY = 'wrong-key-3f9c2a7e51d84b06';
const WRONG_CREDENTIAL_ID = 'mediaGatewayWrongKey';
const WRONG_KEY_WORKFLOW = 'e2eWrongKeyWf001';
const OWNER = {
	email: 'owner@example.com',
	firstName: 'E2E',
	lastName: 'Owner',
	password: 'E2e-Owner-Password-1',
};

const wrongKeyWorkflow = {
	id: WRONG_KEY_WORKFLOW,
	name: 'e2e: image with a wrong API key',
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		{
			id: 'wk-start',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'wk-image',
			name: 'Generate image',
			type: 'n8n-nodes-media-gateway.mediaGatewayImage',
			typeVersion: 1,
			position: [240, 0],
			parameters: { operation: 'generate', prompt: 'A key that does not fit', options: {} },
			credentials: {
				mediaGatewayApi: { id: WRONG_CREDENTIAL_ID, name: 'Media Gateway (wrong key)' },
			},
		},
	],
	connections: { Start: { main: [[{ node: 'Generate image', type: 'main', index: 0 }]] } },
};

/** A port nothing listens on: bound, read, released. */
async function closedPort() {
	const server = net.createServer();
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();
	await new Promise((resolve) => server.close(resolve));
	return port;
}

describe('the Media Gateway API credential in a real n8n', () => {
	let stack;
	let cookie;
	const timings = {};

	beforeAll(async () => {
		const t0 = Date.now();
		stack = await startStack({
			credentials: (sim) => [
				{
					id: WRONG_CREDENTIAL_ID,
					name: 'Media Gateway (wrong key)',
					type: 'mediaGatewayApi',
					data: { apiKey: WRONG_KEY, baseUrl: sim.url },
				},
			],
			workflows: [wrongKeyWorkflow],
		});
		timings.setup = Date.now() - t0;
	});

	afterAll(async () => {
		if (stack) await stack.stop();
		console.log(`credentials e2e timings (ms): ${JSON.stringify(timings)}`);
	});

	test('a workflow run with a wrong key fails with "check the API key" and exit code 1', async () => {
		const before = stack.sim.requests.length;
		const t0 = Date.now();
		const result = await runWorkflow(stack.host, WRONG_KEY_WORKFLOW);
		timings.wrongKeyRun = Date.now() - t0;
		expect(result.exitCode).toBe(1);
		expect(result.status).toBe('error');
		expect(result.lastNodeExecuted).toBe('Generate image');
		const { error, items } = result.nodes['Generate image'];
		expect(items).toEqual([]);
		expect(error.message).toBe('The gateway rejected the API key (HTTP 401)');
		expect(error.description).toMatch(/Check the API Key in the Media Gateway API credential/);
		expect(result.error.message).toBe(error.message);
		// 401 is final: sent once, not retried.
		const sent = stack.sim.requests.slice(before);
		expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
			'POST /imgmodel/v1/imgmodel-v3/generate',
		]);
		expect(sent[0].headers.authorization).toBe('Bearer ***');
		expect(JSON.stringify(result.raw)).not.toContain(WRONG_KEY);
	});

	test('n8n starts with the package and sets up its owner', async () => {
		const started = await stack.host.start();
		timings.start = started.ms;
		const response = await fetch(`${stack.host.url}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(OWNER),
		});
		expect(response.status).toBe(200);
		cookie = response.headers
			.getSetCookie()
			.map((c) => c.split(';')[0])
			.find((c) => c.startsWith('n8n-auth='));
		expect(cookie).toBeDefined();
	});

	/** The editor's Test button: POST /rest/credentials/test with the data as typed in the form. */
	async function testCredential(data) {
		const t0 = Date.now();
		const response = await fetch(`${stack.host.url}/rest/credentials/test`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', cookie },
			body: JSON.stringify({
				credentials: {
					id: DEMO_CREDENTIAL_ID,
					name: DEMO_CREDENTIAL_NAME,
					type: 'mediaGatewayApi',
					data,
				},
			}),
		});
		timings.credentialTest = Date.now() - t0;
		const text = await response.text();
		expect(response.status).toBe(200);
		return { text, result: JSON.parse(text).data };
	}

	test('the right key tests OK, with one harmless GET', async () => {
		const before = stack.sim.requests.length;
		const { result } = await testCredential({ apiKey: stack.apiKey, baseUrl: stack.sim.url });
		expect(result).toEqual({ status: 'OK', message: expect.any(String) });
		const sent = stack.sim.requests.slice(before);
		expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
			'GET /v1/videos/n8n-credential-check',
		]);
		expect(sent[0].headers.authorization).toBe('Bearer ***');
	});

	test('a wrong key tests as Error, says to check the API key, and never echoes the key', async () => {
		const { text, result } = await testCredential({
			apiKey: WRONG_KEY,
			baseUrl: `${stack.sim.url}/`,
		});
		expect(result.status).toBe('Error');
		expect(result.message).toBe('The gateway rejected the API key (HTTP 401). Check the API Key.');
		expect(text).not.toContain(WRONG_KEY);
	});

	test('an unreachable base URL tests as Error', async () => {
		const { text, result } = await testCredential({
			apiKey: stack.apiKey,
			baseUrl: `http://127.0.0.1:${await closedPort()}`,
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/ECONNREFUSED/);
		expect(text).not.toContain(stack.apiKey);
	});

	test('n8n never printed either key', () => {
		// The host redacts known secrets from what it captures and counts each time n8n printed one.
		expect(stack.host.redactions).toBe(0);
		const logs = stack.host.logs();
		expect(logs).not.toContain(WRONG_KEY);
		expect(logs).not.toContain(stack.apiKey);
	});
});
