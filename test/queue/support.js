'use strict';
/**
 * Shared by the queue-mode tests: the examples turned into workflows a webhook processor can start, and
 * what they share with the queue-mode benchmark from dev/ (example loader, callback bodies, load
 * generation, n8n's REST API). Nothing here starts a process.
 */
const crypto = require('node:crypto');
const path = require('node:path');

const { example, localized } = require('../../dev/examples');
const {
	imageCallback,
	videoCallback,
	musicCallback,
	postJson,
} = require('../../dev/gateway-callbacks');
const { mapLimit } = require('../../dev/load-generation');
const { setUpOwner, binaryFromMain } = require('../../dev/n8n-host/rest');

const REPO = path.resolve(__dirname, '..', '..');

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
		parameters: {
			action: 'hash',
			type: 'SHA256',
			binaryData: true,
			binaryPropertyName,
			dataPropertyName: 'sha256',
			encoding: 'hex',
		},
	};
}

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
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
