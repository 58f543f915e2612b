'use strict';
/**
 * A throwaway real n8n for end-to-end tests, benchmarks and the demo, on one of two lines (option `line` or
 * N8N_HOST_LINE): '2.x' (default) or '1.x' (lines.js). A community package is installed into it exactly as
 * n8n's own installer would, then driven through n8n's CLI (import, publish, execute) and `n8n start`.
 * Everything binds to 127.0.0.1; every process it starts is tracked by PID and stopped by PID.
 * Install the runtime first: bash dev/n8n-host/install.sh
 *
 * N8nHost composes one module per job:
 *   lines.js              where each n8n line is installed, and what the host does differently on 1.x
 *   environment.js        the environment of every n8n process
 *   processes.js          spawning and stopping n8n by PID, free ports, readiness probes
 *   log.js                captured output, secrets redacted
 *   community-package.js  npm pack, n8n's community install, the package-load check
 *   cli.js                import:credentials, import:workflow, publish, execute
 *   activation.js         start-up activation of published workflows
 *   database.js           sqlite or PostgreSQL reads
 *   executions.js         n8n's execution records and binary data
 */
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');

const {
	REPO_ROOT,
	CACHE_DIR,
	DEFAULT_LINE,
	linePaths,
	assertInstalled,
	lineBehaviour,
} = require('./lines');
const { n8nEnvironment, ENCRYPTION_KEY } = require('./environment');
const { N8nProcesses, pickFreePorts, sleep, httpStatus } = require('./processes');
const { LogCapture, tail } = require('./log');
const {
	packPackage,
	installPackage,
	packageLoadProblem,
	diagnosePackage,
} = require('./community-package');
const { N8nCli } = require('./cli');
const {
	READY_LINE,
	maxOutboxId,
	activationFromOutbox,
	activationFromLog,
} = require('./activation');
const { N8nDatabase } = require('./database');
const { ExecutionRecords, normalizeRunData } = require('./executions');

class N8nHost {
	/**
	 * `npm pack` of an already-built package (never builds: dist/ must exist); see community-package.js.
	 * @returns {Promise<string>} absolute path of the tarball, in a fresh temp dir
	 */
	static packPackage(repoDir) {
		return packPackage(repoDir);
	}

	/**
	 * @param {object} options
	 * @param {string} [options.tarball] package to install with installPackage()
	 * @param {Record<string,string>} [options.env] extra environment for every n8n process (wins over defaults)
	 * @param {string} [options.logLevel] N8N_LOG_LEVEL; the package-load check in start() needs 'debug'
	 * @param {boolean} [options.keep] keep the user folder after stop() (also N8N_HOST_KEEP=1)
	 * @param {boolean} [options.echo] also print n8n's info/warn/error lines to stderr (demo)
	 * @param {(entry: import('./log').LogEntry) => void} [options.onLog] called with every log entry
	 * @param {string} [options.userFolder] n8n's user folder, created if missing (default: a throwaway one)
	 * @param {'start'|'worker'|'webhook'} [options.command] which n8n process start() runs (queue mode: main,
	 *   worker or webhook processor; the last two need EXECUTIONS_MODE=queue and a shared PostgreSQL in `env`)
	 * @param {string[]} [options.args] extra arguments for that command (`--concurrency=5` for a worker)
	 * @param {string} [options.name] label of this process in logs (default: the command)
	 * @param {'1.x'|'2.x'} [options.line] which installed n8n to run (default N8N_HOST_LINE, else '2.x');
	 *   the differences are in lines.js
	 * @param {Set<string>} [options.secrets] the redaction list, to share one between hosts (queue mode): a
	 *   secret imported through one must not show up in another's log
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
		secrets,
	} = {}) {
		this.paths = linePaths(line);
		this.line = line;
		assertInstalled(this.paths);
		if (!READY_LINE[command])
			throw new Error(`unknown n8n command "${command}": start, worker or webhook`);
		this.command = command;
		this.args = args;
		this.name = name ?? command;
		this.tarball = tarball ? path.resolve(tarball) : undefined;
		this.logLevel = logLevel;
		this.keep = keep || process.env.N8N_HOST_KEEP === '1';
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
		/** Workflow ids marked active through publish(). */
		this.published = new Set();
		/** The environment of every n8n process; changes apply to the next process started. */
		this.env = n8nEnvironment({
			line,
			paths: this.paths,
			url: this.url,
			port: this.port,
			brokerPort: this.brokerPort,
			userFolder: this.userFolder,
			logLevel,
			env,
		});

		const currentEnv = () => this.env;
		this._log = new LogCapture({ echo, onLog, secrets });
		this._processes = new N8nProcesses({ paths: this.paths, cwd: this.userFolder, log: this._log });
		this._cli = new N8nCli({
			processes: this._processes,
			log: this._log,
			env: currentEnv,
			userFolder: this.userFolder,
			line,
		});
		this._database = new N8nDatabase({
			paths: this.paths,
			sqliteFile: this.databasePath,
			env: currentEnv,
		});
		this._executions = new ExecutionRecords({
			database: this._database,
			paths: this.paths,
			behaviour: lineBehaviour(line),
			n8nFolder: this.n8nFolder,
		});
		/** The running `n8n <command>` process, if any. */
		this._server = undefined;
	}

	get databasePath() {
		return path.join(this.n8nFolder, 'database.sqlite');
	}

	get postgres() {
		return this._database.postgres;
	}

	get running() {
		return Boolean(
			this._server && this._server.exitCode === null && this._server.signalCode === null,
		);
	}

	/** How often a secret was replaced in captured output. */
	get redactions() {
		return this._log.redactions;
	}

	/** Called with every log entry from now on (settable after construction, as the demo does). */
	get onLog() {
		return this._log.onLog;
	}

	set onLog(callback) {
		this._log.onLog = callback;
	}

	/** Production webhook URL (`/webhook/<path>`); for nodes without a full path pass `<webhookId>/<path>`. */
	webhookUrl(webhookPath) {
		return `${this.url}/webhook/${String(webhookPath).replace(/^\/+/, '')}`;
	}

	/** Captured stdout/stderr of every n8n process, one line each, secrets replaced by [redacted]. */
	logs() {
		return this._log.entries.map((e) => `[${e.source}] ${e.line}`).join('\n');
	}

	/** The parsed log entries ({source, level, message, metadata}), secrets redacted. */
	logEntries() {
		return this._log.entries.slice();
	}

	/** Installs the `tarball` the way n8n's community installer does (community-package.js). */
	async installPackage() {
		if (!this.tarball) throw new Error('installPackage() needs the `tarball` option');
		const t0 = Date.now();
		this.package = await installPackage({
			tarball: this.tarball,
			n8nFolder: this.n8nFolder,
			env: this.env,
		});
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
			this._log.addSecretsOf(c.data);
		}
		const t0 = Date.now();
		await this._cli.importCredentials(list);
		this.timings.importCredentials = Date.now() - t0;
	}

	/** One `n8n import:workflow` for the whole list; every workflow needs an id. 2.x imports them inactive. */
	async importWorkflows(list) {
		for (const w of list) {
			if (!w.id || !Array.isArray(w.nodes)) throw new Error('each workflow needs an id and nodes');
		}
		const t0 = Date.now();
		await this._cli.importWorkflows(list);
		this.timings.importWorkflows = Date.now() - t0;
	}

	/**
	 * Marks each workflow active: `n8n publish:workflow --id` on 2.x, `n8n update:workflow --id --active=true`
	 * on 1.x. Must happen before start(): n8n activates at start-up.
	 */
	async publish(workflowIds) {
		const ids = Array.isArray(workflowIds) ? workflowIds : [workflowIds];
		if (this.running)
			throw new Error('publish() before start(): a running n8n only activates on restart');
		const t0 = Date.now();
		for (const id of ids) {
			await this._cli.publish(id);
			this.published.add(id);
		}
		this.timings.publish = Date.now() - t0;
	}

	/**
	 * `n8n execute --id=<id> --rawOutput` (the workflow must start with a Manual Trigger).
	 * @returns {Promise<import('./cli').ExecuteResult>} data = run data by node name (see normalizeRunData)
	 */
	async execute(workflowId, { timeoutMs = 170000 } = {}) {
		const t0 = Date.now();
		try {
			return await this._cli.execute(workflowId, { timeoutMs });
		} finally {
			this.timings.execute = Date.now() - t0;
		}
	}

	/**
	 * `n8n start` (or the configured command); resolves once /healthz/readiness answers 200, the editor line
	 * is out and every published workflow's start-up activation finished. Rejects (and kills n8n) when the
	 * installed package failed to load, loaded fewer nodes/credentials than its package.json lists, or a
	 * trigger failed to activate (unless allowActivationErrors).
	 * @returns {Promise<{ms: number, activations: import('./activation').Activation[]}>}
	 */
	async start({ timeoutMs = 150000, allowActivationErrors = false } = {}) {
		if (this.running) throw new Error('n8n is already running');
		const t0 = Date.now();
		const outboxBefore = await maxOutboxId(this._database);
		const firstEntry = this._log.entries.length;
		const child = this._processes.spawn([this.command, ...this.args], this.name, this.env);
		this._server = child;
		const exited = new Promise((resolve) => child.once('exit', resolve));
		const serverEntries = () => this._log.since(firstEntry, this.name);
		const loadProblem = (final) =>
			packageLoadProblem(serverEntries(), this.package, { final, logLevel: this.logLevel });
		const fail = async (message) => {
			const lastLines = tail(serverEntries()); // before shutdown chatter buries the cause
			await this._processes.terminate(child, 5000);
			const diagnosis = message.includes('failed to load') ? await this._diagnosis() : '';
			throw new Error(
				`n8n ${this.command} (${this.name}): ${message}${diagnosis}\n--- last log lines ---\n${lastLines}`,
			);
		};

		let ready = false;
		let activations = [];
		while (!ready) {
			if (child.exitCode !== null || child.signalCode !== null) {
				await exited;
				return fail(`exited early (code ${child.exitCode}, signal ${child.signalCode})`);
			}
			if (Date.now() - t0 > timeoutMs) return fail(`not ready after ${timeoutMs} ms`);
			const problem = loadProblem(false);
			if (problem) return fail(problem);
			const up = serverEntries().some((e) => e.message.includes(READY_LINE[this.command]));
			if (up && this.command === 'worker') {
				ready = true; // a worker serves no HTTP unless its health check is switched on
			} else if (up && this.command === 'webhook') {
				ready = (await httpStatus(`${this.url}/healthz`)) === 200;
			} else if (up && (await httpStatus(`${this.url}/healthz/readiness`)) === 200) {
				const state =
					lineBehaviour(this.line).activationSource === 'log'
						? await activationFromLog(this._database, this.published, serverEntries())
						: await activationFromOutbox(this._database, outboxBefore);
				if (state.done) {
					ready = true;
					activations = state.activations;
				}
			}
			if (!ready) await sleep(250);
		}
		const problem = loadProblem(true);
		if (problem) return fail(problem);
		const failed = activations.filter((a) => a.status !== 'activated');
		if (failed.length > 0 && !allowActivationErrors) {
			return fail(
				`triggers failed to activate: ${failed.map((a) => `${a.workflowId}/${a.nodeId}: ${this._log.redact(String(a.errorMessage))}`).join('; ')}`,
			);
		}
		this.timings.start = Date.now() - t0;
		return { ms: this.timings.start, activations };
	}

	/** SIGTERM to n8n's PID, SIGKILL to its process group after `graceMs`; removes the user folder unless kept. */
	async stop({ keep = this.keep, graceMs = 15000 } = {}) {
		const t0 = Date.now();
		if (this._server) await this._processes.terminate(this._server, graceMs);
		this._server = undefined;
		for (const child of [...this._processes.children]) await this._processes.terminate(child, 2000);
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
	query(sql, params = []) {
		return this._database.query(sql, params);
	}

	/**
	 * Executions saved by n8n, in id order. `data` is the parsed (flatted) IRun data; `runData` is its run data
	 * by node name in the same shape as execute().data.
	 * @returns {Promise<import('./executions').ExecutionRecord[]>}
	 */
	executions({ workflowId } = {}) {
		return this._executions.list({ workflowId });
	}

	/** Polls executions() until predicate(list) is truthy; returns that list. */
	waitForExecutions(predicate, { timeoutMs = 60000, workflowId, intervalMs = 200 } = {}) {
		const serverGone = () => Boolean(this._server) && !this.running;
		return this._executions.waitFor(predicate, { timeoutMs, workflowId, intervalMs, serverGone });
	}

	/**
	 * Bytes of a binary entry from execute()/executions(): filesystem mode reads <n8nFolder>/storage/<fileId>,
	 * database mode (queue mode's default) the binary_data table, in-memory mode (1.x's default) the entry.
	 */
	readBinary(meta) {
		return this._executions.readBinary(meta);
	}

	async _diagnosis() {
		const findings = await diagnosePackage(this.package, { paths: this.paths, env: this.env });
		return findings ? `\n--- diagnosis ---\n${this._log.redact(findings)}` : '';
	}
}

/** sha256 hex, for tests that must compare a secret without printing it. */
N8nHost.sha256 = (value) => createHash('sha256').update(String(value)).digest('hex');
/** Paths of the default line's install (N8N_HOST_LINE, else 2.x); linePaths(line) for another line. */
N8nHost.paths = (({ NODE_BIN, N8N_BIN, N8N_MODULES }) => ({
	REPO_ROOT,
	CACHE_DIR,
	NODE_BIN,
	N8N_BIN,
	N8N_MODULES,
}))(linePaths(DEFAULT_LINE));
N8nHost.linePaths = linePaths;
N8nHost.DEFAULT_LINE = DEFAULT_LINE;
N8nHost.ENCRYPTION_KEY = ENCRYPTION_KEY;

module.exports = { N8nHost, normalizeRunData };
