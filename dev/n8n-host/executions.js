'use strict';
/**
 * n8n's execution records, read from its database: the executions of a workflow with their run data, a
 * wait until they match, and the bytes of a binary entry wherever n8n stored them.
 */
const fsp = require('node:fs/promises');
const path = require('node:path');

const { n8nModule } = require('./lines');
const { sleep } = require('./processes');

/**
 * @typedef {object} NodeRun one run of a node
 * @property {string} [executionStatus]
 * @property {number} [executionTime]
 * @property {object|null} error
 * @property {{json: object, binary?: object, pairedItem?: unknown, error?: object}[][]} outputs
 * @property {{json: object, binary?: object, pairedItem?: unknown, error?: object}[]} items the first output
 */

/**
 * @typedef {object} ExecutionRecord
 * @property {string} id
 * @property {string} workflowId
 * @property {string} status
 * @property {string} mode
 * @property {boolean} finished
 * @property {string|null} startedAt ISO date
 * @property {string|null} stoppedAt
 * @property {string|null} waitTill
 * @property {object|null} data the parsed (flatted) IRun data
 * @property {Record<string, NodeRun[]>} runData
 */

/** sqlite stores n8n's dates as 'YYYY-MM-DD HH:MM:SS.sss' in UTC; PostgreSQL's driver gives Date objects. */
function isoDate(value) {
	if (value === null || value === undefined) return null;
	if (value instanceof Date) return value.toISOString();
	return new Date(`${String(value).replace(' ', 'T')}Z`).toISOString();
}

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
		if (!meta.id && typeof data === 'string')
			Object.defineProperty(meta, 'inlineData', { value: data });
	}
	return out;
}

/**
 * Run data by node name: for each node the list of its runs, each with its outputs (item json, binary
 * metadata, item error, pairedItem), `items` (= the first output) and the run's error.
 * @returns {Record<string, NodeRun[]>}
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

class ExecutionRecords {
	/**
	 * @param {object} options
	 * @param {import('./database').N8nDatabase} options.database
	 * @param {import('./lines').LinePaths} options.paths n8n's modules (flatted) come from the line's tree
	 * @param {import('./lines').LineBehaviour} options.behaviour
	 * @param {string} options.n8nFolder the instance's `.n8n` folder (filesystem binary storage)
	 */
	constructor({ database, paths, behaviour, n8nFolder }) {
		this.database = database;
		this.paths = paths;
		this.behaviour = behaviour;
		this.n8nFolder = n8nFolder;
	}

	/**
	 * Executions saved by n8n, in id order.
	 * @returns {Promise<ExecutionRecord[]>}
	 */
	async list({ workflowId } = {}) {
		const { parse } = n8nModule('flatted', this.paths);
		if (!(await this.database.hasTable('execution_entity'))) return [];
		const rows = await this.database.query(
			`SELECT e.id, e."workflowId", e.status, e.mode, e.finished, e."startedAt", e."stoppedAt", e."waitTill",
				${this.behaviour.executionsHaveStoredAt ? 'e."storedAt", ' : ''}d.data
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

	/**
	 * Polls list() until predicate(list) is truthy; returns that list.
	 * @param {(list: ExecutionRecord[]) => unknown} predicate
	 * @param {{timeoutMs?: number, workflowId?: string, intervalMs?: number, serverGone?: () => boolean}} [options]
	 *   serverGone: true once the n8n that would run them has exited, which ends the wait at once
	 */
	async waitFor(
		predicate,
		{ timeoutMs = 60000, workflowId, intervalMs = 200, serverGone = () => false } = {},
	) {
		const t0 = Date.now();
		let list = [];
		for (;;) {
			list = await this.list({ workflowId });
			if (predicate(list)) return list;
			if (Date.now() - t0 > timeoutMs) {
				const summary =
					list.map((e) => `#${e.id} ${e.workflowId} ${e.mode} ${e.status}`).join(', ') || 'none';
				throw new Error(`executions did not match within ${timeoutMs} ms; have: ${summary}`);
			}
			if (serverGone()) throw new Error('n8n exited while waiting for executions');
			await sleep(intervalMs);
		}
	}

	/**
	 * Bytes of a binary entry: filesystem mode reads <n8nFolder>/storage/<fileId>, database mode (queue
	 * mode's default) the binary_data table, in-memory mode (1.x's default) the entry.
	 */
	async readBinary(meta) {
		if (!meta?.id && typeof meta?.inlineData === 'string')
			return Buffer.from(meta.inlineData, 'base64');
		if (!meta?.id) throw new Error('binary entry has neither a storage id nor inline data');
		const [mode, fileId] = String(meta.id).split(/:(.*)/s);
		if (mode === 'database') {
			const [row] = await this.database.query('SELECT data FROM binary_data WHERE "fileId" = ?', [
				fileId,
			]);
			if (!row) throw new Error(`binary ${meta.id} is not in the binary_data table`);
			return Buffer.from(row.data);
		}
		const file = path.resolve(this.n8nFolder, 'storage', fileId);
		if (!file.startsWith(path.join(this.n8nFolder, 'storage') + path.sep))
			throw new Error('bad binary id');
		return fsp.readFile(file);
	}
}

module.exports = { ExecutionRecords, normalizeRunData, isoDate };
