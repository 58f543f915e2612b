'use strict';
/**
 * Smoke test of the real-n8n host (dev/n8n-host/host.js) against a tiny community package generated here,
 * so that it does not depend on this repository's own nodes being buildable.
 * Needs `bash dev/n8n-host/install.sh`. Run: npx jest -c jest.e2e.config.js test/e2e/host.test.js
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { N8nHost } = require('../../dev/n8n-host/host');

const API_KEY = 'hc-test-key-7f3a9c1e5b';
const CREDENTIAL = {
	id: 'hostcheckCred01',
	name: 'Host Check account',
	type: 'hostCheckApi',
	data: { apiKey: API_KEY },
};
const MANUAL_WF = 'hcManualWf00001';
const FAILING_WF = 'hcFailingWf0001';
const WEBHOOK_WF = 'hcWebhookWf0001';
const WEBHOOK_PATH = 'hostcheck-e2e';

/** A one-node, one-credential community package in plain JS; `brokenClassName` makes n8n reject it. */
function writeFixturePackage(dir, { name = 'n8n-nodes-hostcheck', brokenClassName = false } = {}) {
	const write = (file, text) => {
		fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
		fs.writeFileSync(path.join(dir, file), text);
	};
	write(
		'package.json',
		JSON.stringify(
			{
				name,
				version: '0.0.1',
				license: 'MIT',
				files: ['dist'],
				n8n: {
					n8nNodesApiVersion: 1,
					nodes: ['dist/nodes/HostCheck/HostCheck.node.js'],
					credentials: ['dist/credentials/HostCheckApi.credentials.js'],
				},
				peerDependencies: { 'n8n-workflow': '*' },
				// Never installed: the community installer strips devDependencies first.
				devDependencies: { 'left-pad': '1.3.0' },
			},
			null,
			2,
		),
	);
	write(
		'dist/credentials/HostCheckApi.credentials.js',
		`class HostCheckApi {
	constructor() {
		this.name = 'hostCheckApi';
		this.displayName = 'Host Check API';
		this.properties = [
			{ displayName: 'API Key', name: 'apiKey', type: 'string', typeOptions: { password: true }, default: '' },
		];
	}
}
module.exports = { HostCheckApi };
`,
	);
	const className = brokenClassName ? 'HostCheckRenamed' : 'HostCheck';
	write(
		'dist/nodes/HostCheck/HostCheck.node.js',
		`const { createHash } = require('crypto');
// Resolved from the n8n host (NODE_PATH), as a community package with n8n-workflow as a peer would be.
const { NodeOperationError } = require('n8n-workflow');

class ${className} {
	constructor() {
		this.description = {
			displayName: 'Host Check',
			name: 'hostCheck',
			group: ['transform'],
			version: 1,
			description: 'Test fixture for the n8n host',
			defaults: { name: 'Host Check' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'hostCheckApi', required: true }],
			properties: [
				{ displayName: 'Greeting', name: 'greeting', type: 'string', default: 'hello' },
				{ displayName: 'Fail', name: 'fail', type: 'boolean', default: false },
			],
		};
	}

	async execute() {
		const items = this.getInputData();
		const { apiKey } = await this.getCredentials('hostCheckApi');
		const out = [];
		for (let i = 0; i < items.length; i++) {
			const greeting = this.getNodeParameter('greeting', i);
			if (this.getNodeParameter('fail', i)) {
				throw new NodeOperationError(this.getNode(), 'fixture failure requested', { itemIndex: i });
			}
			const binary = { greeting: await this.helpers.prepareBinaryData(Buffer.from(greeting), 'greeting.txt', 'text/plain') };
			out.push({
				json: { greeting, body: items[i].json.body ?? null, keySha256: createHash('sha256').update(String(apiKey)).digest('hex') },
				binary,
				pairedItem: { item: i },
			});
		}
		return [out];
	}
}
module.exports = { ${className} };
`,
	);
}

function hostCheckNode(parameters) {
	return {
		id: 'node-hostcheck',
		name: 'Host Check',
		type: 'n8n-nodes-hostcheck.hostCheck',
		typeVersion: 1,
		position: [220, 0],
		parameters,
		credentials: { hostCheckApi: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
	};
}

function manualWorkflow(id, parameters) {
	return {
		id,
		name: `host check ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'node-start',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			hostCheckNode(parameters),
		],
		connections: { Start: { main: [[{ node: 'Host Check', type: 'main', index: 0 }]] } },
	};
}

const webhookWorkflow = {
	id: WEBHOOK_WF,
	name: 'host check webhook',
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		{
			id: 'node-webhook',
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: '5b7e2d0c-3f4a-4e7b-9c1d-2a6f8e0b4c11',
			parameters: {
				httpMethod: 'POST',
				path: WEBHOOK_PATH,
				responseMode: 'lastNode',
				responseData: 'firstEntryJson',
				options: {},
			},
		},
		hostCheckNode({ greeting: 'from the webhook' }),
	],
	connections: { Webhook: { main: [[{ node: 'Host Check', type: 'main', index: 0 }]] } },
};

const timings = {};
const tmpRoots = [];

function fixtureTarballDir(options) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-host-fixture-'));
	tmpRoots.push(dir);
	writeFixturePackage(dir, options);
	return dir;
}

afterAll(() => {
	for (const dir of tmpRoots) fs.rmSync(dir, { recursive: true, force: true });
	// One line that the report and benchmarks can quote.
	console.log(`n8n host timings (ms): ${JSON.stringify(timings)}`);
});

describe('N8nHost with a working community package', () => {
	let host;
	let tarball;

	beforeAll(async () => {
		tarball = await N8nHost.packPackage(fixtureTarballDir());
		tmpRoots.push(path.dirname(tarball));
		host = new N8nHost({ tarball });
		await host.installPackage();
		await host.importCredentials([CREDENTIAL]);
		await host.importWorkflows([
			manualWorkflow(MANUAL_WF, { greeting: 'hi there' }),
			manualWorkflow(FAILING_WF, { greeting: 'doomed', fail: true }),
			webhookWorkflow,
		]);
		await host.publish(WEBHOOK_WF);
		Object.assign(timings, {
			installPackage: host.timings.installPackage,
			importCredentials: host.timings.importCredentials,
			importWorkflows: host.timings.importWorkflows,
			publish: host.timings.publish,
		});
	});

	afterAll(async () => {
		if (!host) return;
		const folder = host.userFolder;
		await host.stop();
		expect(host.running).toBe(false);
		expect(fs.existsSync(folder)).toBe(false);
	});

	test('installs the package the way n8n’s community installer does', () => {
		const dir = path.join(host.userFolder, '.n8n', 'nodes', 'node_modules', 'n8n-nodes-hostcheck');
		expect(host.package).toEqual({
			name: 'n8n-nodes-hostcheck',
			version: '0.0.1',
			dir,
			nodes: 1,
			credentials: 1,
		});
		const installed = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
		expect(installed.devDependencies).toBeUndefined();
		expect(installed.peerDependencies).toBeUndefined();
		expect(installed.n8n.nodes).toEqual(['dist/nodes/HostCheck/HostCheck.node.js']);
		expect(fs.existsSync(path.join(dir, 'dist/nodes/HostCheck/HostCheck.node.js'))).toBe(true);
		expect(fs.existsSync(path.join(dir, 'node_modules', 'left-pad'))).toBe(false);
		const ledger = JSON.parse(
			fs.readFileSync(path.join(host.userFolder, '.n8n', 'nodes', 'package.json'), 'utf8'),
		);
		expect(ledger).toEqual({
			name: 'installed-nodes',
			private: true,
			dependencies: { 'n8n-nodes-hostcheck': '0.0.1' },
		});
	});

	test('stores the imported credential encrypted', async () => {
		const [row] = await host.query('SELECT type, data FROM credentials_entity WHERE id = ?', [
			CREDENTIAL.id,
		]);
		expect(row.type).toBe('hostCheckApi');
		expect(typeof row.data).toBe('string');
		expect(row.data).not.toContain(API_KEY);
	});

	test('executes a Manual Trigger workflow through the community node', async () => {
		const result = await host.execute(MANUAL_WF);
		timings.execute = host.timings.execute;
		expect(result.exitCode).toBe(0);
		expect(result.status).toBe('success');
		expect(result.error).toBeNull();
		const [run] = result.data['Host Check'];
		expect(run.error).toBeNull();
		expect(run.items).toHaveLength(1);
		expect(run.items[0].json).toEqual({
			greeting: 'hi there',
			body: null,
			keySha256: N8nHost.sha256(API_KEY),
		});
		expect(run.items[0].binary.greeting).toMatchObject({
			fileName: 'greeting.txt',
			mimeType: 'text/plain',
		});
		expect((await host.readBinary(run.items[0].binary.greeting)).toString()).toBe('hi there');
	});

	test('reports a failing node with exit code 1 and its error', async () => {
		const result = await host.execute(FAILING_WF);
		expect(result.exitCode).toBe(1);
		expect(result.status).toBe('error');
		expect(result.lastNodeExecuted).toBe('Host Check');
		const [run] = result.data['Host Check'];
		expect(run.error.message).toBe('fixture failure requested');
		expect(run.items).toEqual([]);
	});

	test('starts with the package loaded and runs the published webhook workflow once', async () => {
		const started = await host.start();
		timings.start = started.ms;
		expect(started.activations).toEqual([
			{ workflowId: WEBHOOK_WF, nodeId: 'node-webhook', status: 'activated', errorMessage: null },
		]);
		expect(host.logs()).toContain('Loaded all credentials and nodes from n8n-nodes-hostcheck');

		const t0 = Date.now();
		const response = await fetch(host.webhookUrl(WEBHOOK_PATH), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ order: 42 }),
		});
		timings.webhookRoundTrip = Date.now() - t0;
		expect(response.status).toBe(200);
		expect(await response.json()).toEqual({
			greeting: 'from the webhook',
			body: { order: 42 },
			keySha256: N8nHost.sha256(API_KEY),
		});

		const executions = await host.waitForExecutions(
			(list) => list.length > 0 && list.every((e) => e.finished),
			{
				workflowId: WEBHOOK_WF,
			},
		);
		expect(executions).toHaveLength(1);
		const [execution] = executions;
		expect(execution).toMatchObject({
			workflowId: WEBHOOK_WF,
			mode: 'webhook',
			status: 'success',
			finished: true,
			waitTill: null,
		});
		expect(Date.parse(execution.stoppedAt)).toBeGreaterThanOrEqual(Date.parse(execution.startedAt));
		expect(execution.runData.Webhook[0].items[0].json.body).toEqual({ order: 42 });
		expect(execution.runData['Host Check'][0].items[0].json.greeting).toBe('from the webhook');
		// Still exactly one once a second request has gone all the way through (an event, not a pause): no
		// retry, no duplicate from the response path.
		const barrier = await fetch(host.webhookUrl(WEBHOOK_PATH), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ order: 43 }),
		});
		expect(barrier.status).toBe(200);
		const after = await host.waitForExecutions(
			(list) => list.length > 1 && list.every((e) => e.finished),
			{
				workflowId: WEBHOOK_WF,
			},
		);
		expect(after.map((e) => e.runData.Webhook[0].items[0].json.body)).toEqual([
			{ order: 42 },
			{ order: 43 },
		]);
	});

	test('n8n never printed the API key', () => {
		// The host redacts known secrets from its captured logs and counts every redaction.
		expect(host.redactions).toBe(0);
		expect(host.logs()).not.toContain(API_KEY);
	});
});

describe('N8nHost with a package that n8n cannot load', () => {
	let host;

	afterAll(async () => {
		if (host) await host.stop();
	});

	test('start() rejects and names the package', async () => {
		const tarball = await N8nHost.packPackage(fixtureTarballDir({ brokenClassName: true }));
		tmpRoots.push(path.dirname(tarball));
		host = new N8nHost({ tarball });
		await host.installPackage();
		const failure = host.start();
		await expect(failure).rejects.toThrow(/package n8n-nodes-hostcheck failed to load/);
		// n8n's own message hides the cause; the host's diagnosis names it.
		await expect(failure).rejects.toThrow(
			/exports \[HostCheckRenamed\], n8n needs a class named HostCheck/,
		);
		expect(host.running).toBe(false);
	});
});

describe('N8nHost.packPackage', () => {
	test('refuses a package without dist/', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-host-nodist-'));
		tmpRoots.push(dir);
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			JSON.stringify({ name: 'n8n-nodes-nodist', version: '1.0.0' }),
		);
		await expect(N8nHost.packPackage(dir)).rejects.toThrow(/dist does not exist/);
	});

	test('refuses a tarball that lacks a listed dist file', async () => {
		const dir = fixtureTarballDir({ name: 'n8n-nodes-missingfile' });
		fs.rmSync(path.join(dir, 'dist/credentials'), { recursive: true });
		await expect(N8nHost.packPackage(dir)).rejects.toThrow(
			/lacks files .*HostCheckApi\.credentials\.js/,
		);
	});
});
