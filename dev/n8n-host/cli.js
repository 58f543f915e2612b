'use strict';
/**
 * n8n's command line against one user folder: importing credentials and workflows, marking workflows
 * active, and running one workflow to its end. Calls run one at a time: each bootstraps (and may migrate)
 * the same database.
 */
const fsp = require('node:fs/promises');
const path = require('node:path');

const { lineBehaviour } = require('./lines');
const { tail } = require('./log');
const { normalizeRunData } = require('./executions');
const { killGroup, pickFreePorts, deadline } = require('./processes');

/**
 * @typedef {object} CliResult
 * @property {number} code exit code (1 when killed by a signal)
 * @property {NodeJS.Signals|null} signal
 * @property {import('./log').LogEntry[]} entries what this call printed
 */

/**
 * @typedef {object} ExecuteResult
 * @property {number} exitCode
 * @property {string} status
 * @property {object|null} error
 * @property {string} lastNodeExecuted
 * @property {Record<string, import('./executions').NodeRun[]>} data run data by node name (see normalizeRunData)
 * @property {object} raw the whole IRun n8n printed
 */

class N8nCli {
	/**
	 * @param {object} options
	 * @param {import('./processes').N8nProcesses} options.processes
	 * @param {import('./log').LogCapture} options.log
	 * @param {() => Record<string, string>} options.env the host's environment at the time of each call
	 * @param {string} options.userFolder input files are written (and removed) under it
	 * @param {'1.x'|'2.x'} options.line
	 */
	constructor({ processes, log, env, userFolder, line }) {
		this.processes = processes;
		this.log = log;
		this.env = env;
		this.userFolder = userFolder;
		this.behaviour = lineBehaviour(line);
		this._queue = Promise.resolve();
	}

	/** `n8n <args>` to its exit, after every earlier call; a call over `timeoutMs` is killed and rejects. */
	run(args, { timeoutMs = 170000 } = {}) {
		const run = async () => {
			// A CLI call starts its own task broker; never on the running server's port.
			const [brokerPort] = pickFreePorts(1);
			const env = { ...this.env(), N8N_RUNNERS_BROKER_PORT: String(brokerPort) };
			const source = args[0];
			const first = this.log.entries.length;
			const child = this.processes.spawn(args, source, env);
			const exited = new Promise((resolve) =>
				child.once('exit', (code, signal) => resolve({ code, signal })),
			);
			const timer = deadline(timeoutMs);
			const result = await Promise.race([exited, timer.promise]);
			timer.cancel();
			if (result === 'timeout') {
				killGroup(child.pid, 'SIGKILL');
				await exited;
				throw new Error(`n8n ${args.join(' ')} timed out after ${timeoutMs} ms`);
			}
			await this.processes.lastLines(child);
			return {
				code: result.code ?? 1,
				signal: result.signal,
				entries: this.log.since(first, source),
			};
		};
		const next = this._queue.then(run, run);
		this._queue = next.catch(() => undefined);
		return next;
	}

	/** run(), failing with the log's tail unless it exits 0 and logs `successText`. */
	async checked(args, successText) {
		const { code, entries } = await this.run(args);
		const ok = code === 0 && entries.some((e) => e.message.includes(successText));
		if (!ok) throw new Error(`n8n ${args[0]} failed (exit code ${code}):\n${tail(entries)}`);
		return entries;
	}

	/** One `n8n import:credentials` for the whole list (plain data: n8n encrypts it). */
	async importCredentials(list) {
		await this._withInputFile('credentials.json', list, (file) =>
			this.checked(
				['import:credentials', `--input=${file}`],
				`Successfully imported ${list.length} credential`,
			),
		);
	}

	/** One `n8n import:workflow` for the whole list. */
	async importWorkflows(list) {
		await this._withInputFile('workflows.json', list, (file) =>
			this.checked(
				['import:workflow', `--input=${file}`],
				`Successfully imported ${list.length} workflow`,
			),
		);
	}

	/** Marks one workflow active, the way its line does it. */
	async publish(workflowId) {
		const { args, successText } = this.behaviour.publishCommand(workflowId);
		await this.checked(args, successText);
	}

	/**
	 * `n8n execute --id=<id> --rawOutput` (the workflow must start with a Manual Trigger).
	 * @returns {Promise<ExecuteResult>}
	 */
	async execute(workflowId, { timeoutMs = 170000 } = {}) {
		const { code, entries } = await this.run(['execute', `--id=${workflowId}`, '--rawOutput'], {
			timeoutMs,
		});
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
				`n8n execute --id=${workflowId} printed no execution (exit code ${code}):\n${tail(entries)}`,
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
}

module.exports = { N8nCli };
