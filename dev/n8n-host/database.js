'use strict';
/**
 * Read access to an instance's database, sqlite or PostgreSQL, through n8n's own drivers (or Node's
 * built-in sqlite when n8n's sqlite3 binary is built for another Node). n8n owns the writes.
 */
const fs = require('node:fs');

const { n8nModule } = require('./lines');

class N8nDatabase {
	/**
	 * @param {object} options
	 * @param {import('./lines').LinePaths} options.paths
	 * @param {string} options.sqliteFile where the sqlite database is (or will be)
	 * @param {() => Record<string, string>} options.env the host's environment at the time of each query
	 *   (DB_TYPE and DB_POSTGRESDB_*)
	 */
	constructor({ paths, sqliteFile, env }) {
		this.paths = paths;
		this.sqliteFile = sqliteFile;
		this.env = env;
	}

	get postgres() {
		return this.env().DB_TYPE === 'postgresdb';
	}

	/**
	 * Any SQL; write `?` placeholders and double-quoted camelCase columns: both dialects accept that. No
	 * sqlite file yet means no rows.
	 */
	async query(sql, params = []) {
		if (this.postgres) return this._queryPostgres(sql, params);
		if (!fs.existsSync(this.sqliteFile)) return [];
		if (!this.paths.sqliteLoadsHere) return this._querySqliteBuiltIn(sql, params);
		const sqlite3 = n8nModule('sqlite3', this.paths);
		const db = await new Promise((resolve, reject) => {
			// Read-write open although we only read: a read-only open of a WAL database fails when -shm is gone.
			const handle = new sqlite3.Database(this.sqliteFile, sqlite3.OPEN_READWRITE, (err) =>
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

	/** Whether a table exists; false also when there is no database yet. */
	async hasTable(name) {
		const sql = this.postgres
			? 'SELECT table_name AS name FROM information_schema.tables WHERE table_name = ?'
			: 'SELECT name FROM sqlite_master WHERE name = ?';
		try {
			return (await this.query(sql, [name])).length > 0;
		} catch {
			return false; // no database yet
		}
	}

	/**
	 * The same query through Node's own sqlite (node:sqlite, Node 22.5+), for a line whose n8n runs on another
	 * Node than this process: its sqlite3 binary would not load here. Same file format, same rows.
	 */
	_querySqliteBuiltIn(sql, params) {
		const { DatabaseSync } = require('node:sqlite');
		const db = new DatabaseSync(this.sqliteFile, { timeout: 10000 });
		try {
			return db
				.prepare(sql)
				.all(...params)
				.map((row) => ({ ...row }));
		} finally {
			db.close();
		}
	}

	/** PostgreSQL through n8n's own `pg` driver; `?` placeholders become `$1…`. One short-lived client per call. */
	async _queryPostgres(sql, params) {
		const env = this.env();
		const { Client } = n8nModule('pg', this.paths);
		const client = new Client({
			host: env.DB_POSTGRESDB_HOST,
			port: Number(env.DB_POSTGRESDB_PORT),
			database: env.DB_POSTGRESDB_DATABASE,
			user: env.DB_POSTGRESDB_USER,
			password: env.DB_POSTGRESDB_PASSWORD || undefined,
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
}

module.exports = { N8nDatabase };
