'use strict';
/**
 * The environment every n8n process of one host runs with: the caller's environment without any n8n
 * settings, then a quiet, offline n8n on 127.0.0.1 that keeps every execution, then the caller's `env`.
 */
const path = require('node:path');

const { lineBehaviour } = require('./lines');

/** Fixed so that credentials imported in one CLI call decrypt in the next, and in `n8n start`. */
const ENCRYPTION_KEY = 'n8n-host-e2e-fixed-encryption-key-0001';

/**
 * @param {object} options
 * @param {'1.x'|'2.x'} options.line
 * @param {import('./lines').LinePaths} options.paths
 * @param {string} options.url the instance's base URL, no trailing slash
 * @param {number} options.port
 * @param {number} options.brokerPort the task runners' broker
 * @param {string} options.userFolder
 * @param {string} options.logLevel
 * @param {Record<string, string>} options.env wins over everything here
 * @returns {Record<string, string>}
 */
function n8nEnvironment({ line, paths, url, port, brokerPort, userFolder, logLevel, env }) {
	const inherited = { ...process.env };
	for (const key of Object.keys(inherited)) {
		// Never let the caller's n8n settings leak in.
		if (/^(N8N_|DB_|EXECUTIONS_|QUEUE_|CREDENTIALS_|NODES_)/.test(key)) delete inherited[key];
	}
	// NODE_ENV=test (set by jest) makes n8n refuse to load any nodes.
	for (const key of [
		'NODE_ENV',
		'NODE_OPTIONS',
		'NODE_PATH',
		'WEBHOOK_URL',
		'JEST_WORKER_ID',
		'GENERIC_TIMEZONE',
	]) {
		delete inherited[key];
	}
	return {
		...inherited,
		PATH: `${paths.NODE_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`,
		NO_COLOR: '1',
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `${url}/`,
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_LOG_LEVEL: logLevel,
		// One JSON object per line: machine-checkable, and `execute --rawOutput` prints its result as one line.
		N8N_LOG_FORMAT: 'json',
		N8N_LOG_OUTPUT: 'console',
		// Offline and quiet: no telemetry, version checks, templates, banners, remote MCP registry.
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		// The webhook base URL and the module switch, as each line names them.
		...lineBehaviour(line).environment(url),
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		// Today's defaults, set explicitly only because n8n warns about their future change at every start.
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_RUNNERS_TASK_TIMEOUT: '300',
		N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES: '2147483648',
		N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES: '5000',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
		// A record left in progress by a stopped instance blocks re-activation for the lease (2 min by
		// default); there is only ever one main here, so a short lease and a quick poll are safe.
		N8N_WORKFLOW_PUBLICATION_OUTBOX_LEASE_SECONDS: '15',
		N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '1000',
		DB_TYPE: 'sqlite',
		// The 5 s default ping timeout trips on a loaded 2-core machine and sends n8n into DB recovery.
		DB_PING_TIMEOUT_MS: '30000',
		// executions() reads what n8n saved: keep every execution, whatever the outcome.
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		EXECUTIONS_DATA_PRUNE: 'false',
		GENERIC_TIMEZONE: 'UTC',
		...env,
	};
}

module.exports = { n8nEnvironment, ENCRYPTION_KEY };
