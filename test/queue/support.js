'use strict';
/**
 * Shared by the queue-mode test and benchmark: the examples turned into workflows a webhook processor can
 * start, callback bodies, and small HTTP helpers. Nothing here starts a process.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const { imageCallback, videoCallback, musicCallback, postJson } = require('../fixtures/callbacks');
const { mapLimit } = require('../fixtures/load');

const REPO = path.resolve(__dirname, '..', '..');
const EXAMPLES = path.join(REPO, 'examples');
const EXAMPLE_N8N_URL = 'http://localhost:5678/';

function example(name) {
	return JSON.parse(fs.readFileSync(path.join(EXAMPLES, `${name}.json`), 'utf8'));
}

/** The example with every `http://localhost:5678/` pointed at `baseUrl` (the balancer). */
function localized(workflow, baseUrl) {
	return JSON.parse(JSON.stringify(workflow).split(EXAMPLE_N8N_URL).join(`${baseUrl.replace(/\/+$/, '')}/`));
}

/**
 * An example that starts with a Manual Trigger, started instead by a Webhook node named "Start" at
 * `/webhook/<path>`: in queue mode `n8n execute` runs in its own process, while a production webhook is
 * received by a webhook processor and executed by a worker, which is what the test must show.
 */
function webhookStarted(name, { id, path: webhookPath, webhookId }) {
	const wf = example(name);
	const manual = wf.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger');
	if (!manual) throw new Error(`${name} has no Manual Trigger`);
	const start = {
		id: manual.id,
		name: 'Start',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: manual.position,
		webhookId,
		parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
	};
	wf.nodes = wf.nodes.map((n) => (n === manual ? start : n));
	wf.connections = Object.fromEntries(
		Object.entries(wf.connections).map(([from, c]) => [from === manual.name ? 'Start' : from, c]),
	);
	wf.id = id;
	wf.name = `${wf.name} (queue)`;
	return wf;
}

/** Appends `node` after `afterName` (first output). */
function appendNode(wf, afterName, node) {
	wf.nodes.push(node);
	wf.connections[afterName] = { main: [[{ node: node.name, type: 'main', index: 0 }]] };
	return wf;
}

/** n8n's Crypto node hashing a binary field: a plain n8n node that must read what the package stored. */
function hashNode(name, binaryPropertyName, position = [900, 300]) {
	return {
		id: crypto.randomUUID(),
		name,
		type: 'n8n-nodes-base.crypto',
		typeVersion: 2,
		position,
		parameters: { action: 'hash', type: 'SHA256', binaryData: true, binaryPropertyName, dataPropertyName: 'sha256', encoding: 'hex' },
	};
}

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The owner account on main (REST), returning the session cookie: what the editor itself would use. */
async function setUpOwner(mainUrl) {
	const response = await fetch(`${mainUrl}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ email: 'owner@example.com', firstName: 'Queue', lastName: 'Owner', password: 'Queue-Owner-Password-1' }),
	});
	if (response.status !== 200) throw new Error(`owner setup answered ${response.status}: ${await response.text()}`);
	const cookie = response.headers
		.getSetCookie()
		.map((c) => c.split(';')[0])
		.find((c) => c.startsWith('n8n-auth='));
	if (!cookie) throw new Error('owner setup set no n8n-auth cookie');
	return cookie;
}

/** A binary entry's bytes as the main process serves them to the editor (`/rest/binary-data`). */
async function binaryFromMain(mainUrl, cookie, meta) {
	const url = `${mainUrl}/rest/binary-data?id=${encodeURIComponent(meta.id)}&action=download`;
	const response = await fetch(url, { headers: { cookie } });
	if (response.status !== 200) throw new Error(`main answered ${response.status} for ${meta.id}`);
	return Buffer.from(await response.arrayBuffer());
}

module.exports = {
	REPO,
	example,
	localized,
	webhookStarted,
	appendNode,
	hashNode,
	imageCallback,
	videoCallback,
	musicCallback,
	postJson,
	mapLimit,
	sleep,
	setUpOwner,
	binaryFromMain,
};
