'use strict';
/**
 * The example workflows (examples/*.json) as tests, benchmarks and the demo import them: written for
 * n8n's default address, pointed at the n8n they run in, and the credential they reference.
 */
const fs = require('node:fs');
const path = require('node:path');

const REPO_ROOT = path.resolve(__dirname, '..');
const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');
/** The credential every example references; tests and the demo import it under this id and name. */
const DEMO_CREDENTIAL_ID = 'mediaGatewayDemo';
const DEMO_CREDENTIAL_NAME = 'Media Gateway (demo)';
/** The n8n address the examples are written for (n8n's default); replaced by the real one on import. */
const EXAMPLE_N8N_URL = 'http://localhost:5678/';

/** Every string in a JSON value with `from` replaced by `to` (URLs sit in parameters and notes alike). */
function replaceInStrings(value, from, to) {
	if (typeof value === 'string') return value.split(from).join(to);
	if (Array.isArray(value)) return value.map((v) => replaceInStrings(v, from, to));
	if (value && typeof value === 'object') {
		return Object.fromEntries(
			Object.entries(value).map(([k, v]) => [k, replaceInStrings(v, from, to)]),
		);
	}
	return value;
}

/** The parsed examples/*.json by file name without `.json`, every `http://localhost:5678/` replaced by `<n8nUrl>/`. */
function loadExamples(n8nUrl) {
	const base = n8nUrl ? `${String(n8nUrl).replace(/\/+$/, '')}/` : EXAMPLE_N8N_URL;
	const examples = {};
	for (const file of fs
		.readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort()) {
		const workflow = JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8'));
		examples[path.basename(file, '.json')] = replaceInStrings(workflow, EXAMPLE_N8N_URL, base);
	}
	return examples;
}

/** One example as written (`name` without `.json`). */
function example(name) {
	return JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, `${name}.json`), 'utf8'));
}

/** The workflow with every `http://localhost:5678/` pointed at `baseUrl` (queue mode: the balancer). */
function localized(workflow, baseUrl) {
	return JSON.parse(
		JSON.stringify(workflow)
			.split(EXAMPLE_N8N_URL)
			.join(`${baseUrl.replace(/\/+$/, '')}/`),
	);
}

module.exports = {
	loadExamples,
	example,
	localized,
	DEMO_CREDENTIAL_ID,
	DEMO_CREDENTIAL_NAME,
	EXAMPLES_DIR,
	EXAMPLE_N8N_URL,
};
