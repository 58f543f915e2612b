'use strict';
/**
 * n8n in queue mode, for real: a throwaway PostgreSQL (shared database) and Redis (Bull queue), one main
 * process, N `n8n worker` processes and M `n8n webhook` processes behind one round-robin URL. Every process
 * has its own user folder with the package installed the way n8n's community installer does it, and all
 * share one encryption key. Everything listens on 127.0.0.1 and is stopped by PID.
 *
 *   const cluster = new QueueCluster({ tarball, workers: 1, webhooks: 2 });
 *   await cluster.prepare();                      // servers up, package installed into every user folder
 *   await cluster.main.importCredentials([...]);  // CLI calls go through the main process's settings
 *   await cluster.main.importWorkflows([...]); await cluster.main.publish([...]);
 *   await cluster.start();                        // main, then workers and webhook processors
 *   cluster.webhookUrl('<path>');                 // production webhook URL, through the balancer
 *   await cluster.main.executions();              // n8n's own execution records, from PostgreSQL
 *   await cluster.stop();
 *
 * Binary data: queue mode needs a store every process reads; n8n 2.x defaults to `database` there (the
 * binary_data table in PostgreSQL). Set explicitly, so that a changed default cannot silently break it.
 */
const { N8nHost } = require('./host');
const { startBalancer } = require('./balancer');
const { startPostgres, startRedis } = require('./services');

class QueueCluster {
	/**
	 * @param {object} options
	 * @param {string} options.tarball the packed package (N8nHost.packPackage)
	 * @param {number} [options.workers] `n8n worker` processes (default 1)
	 * @param {number} [options.webhooks] `n8n webhook` processes behind the balancer (default 1)
	 * @param {number} [options.workerConcurrency] jobs per worker (`--concurrency`, n8n's default 10)
	 * @param {Record<string,string>} [options.env] extra environment for every process
	 * @param {string} [options.logLevel] N8N_LOG_LEVEL for every process (the package-load check needs debug)
	 * @param {boolean} [options.echo] print n8n's info/warn/error lines to stderr
	 */
	constructor({
		tarball,
		workers = 1,
		webhooks = 1,
		workerConcurrency = 10,
		env = {},
		logLevel = 'debug',
		echo = false,
	}) {
		if (!tarball) throw new Error('QueueCluster needs a packed `tarball`');
		this.tarball = tarball;
		this.workerCount = workers;
		this.webhookCount = webhooks;
		this.workerConcurrency = workerConcurrency;
		this.extraEnv = env;
		this.logLevel = logLevel;
		this.echo = echo;
		this.main = undefined;
		this.workers = [];
		this.webhooks = [];
		this.timings = {};
		this._secrets = new Set();
	}

	get hosts() {
		return [this.main, ...this.workers, ...this.webhooks].filter(Boolean);
	}

	/** The one URL callers use for webhooks: the balancer in front of the webhook processes. */
	get webhookBaseUrl() {
		return this.balancer.url;
	}

	webhookUrl(webhookPath) {
		return `${this.balancer.url}/webhook/${String(webhookPath).replace(/^\/+/, '')}`;
	}

	/** Servers up, every process's host created with the package installed; nothing of n8n runs yet. */
	async prepare() {
		let t0 = Date.now();
		[this.postgres, this.redis] = await Promise.all([startPostgres(), startRedis()]);
		this.timings.services = Date.now() - t0;

		// The balancer first: its URL is every process's N8N_WEBHOOK_URL (workers build $execution.resumeUrl
		// from it); its backends are the webhook processes' ports, known once their hosts exist.
		this.balancer = await startBalancer();
		this.webhooks = Array.from({ length: this.webhookCount }, (_, i) =>
			this._host('webhook', `webhook-${i + 1}`),
		);
		this.balancer.setBackends(this.webhooks.map((h) => h.url));
		this.main = this._host('start', 'main', {
			// Production webhooks belong to the webhook processes; main keeps the editor, REST and activation.
			N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
		});
		this.workers = Array.from({ length: this.workerCount }, (_, i) => this._workerHost(i + 1));

		t0 = Date.now();
		await Promise.all(this.hosts.map((h) => h.installPackage()));
		this.timings.installPackage = Date.now() - t0;
	}

	/** Main first (it migrates the database and activates published workflows), then the rest together. */
	async start({ timeoutMs = 240000 } = {}) {
		const t0 = Date.now();
		await this.main.start({ timeoutMs });
		this.timings.startMain = Date.now() - t0;
		const t1 = Date.now();
		await Promise.all([...this.workers, ...this.webhooks].map((h) => h.start({ timeoutMs })));
		this.timings.startOthers = Date.now() - t1;
	}

	/** One more worker, started (benchmarks compare worker counts on the same cluster). */
	async addWorker({ timeoutMs = 240000 } = {}) {
		const host = this._workerHost(this.workers.length + 1);
		this.workers.push(host);
		await host.installPackage();
		await host.start({ timeoutMs });
		return host;
	}

	/** Every process's log, each line prefixed with the process name; secrets redacted. */
	logs() {
		return this.hosts
			.map((h) => h.logs())
			.filter(Boolean)
			.join('\n');
	}

	/** Log entries of one process (by name: main, worker-1, webhook-2, …). */
	entriesOf(name) {
		const host = this.hosts.find((h) => h.name === name);
		return host ? host.logEntries() : [];
	}

	/** Workers, webhook processes, main, then the servers; each step runs even if an earlier one failed. */
	async stop() {
		const results = [];
		results.push(
			...(await Promise.allSettled([...this.webhooks, ...this.workers].map((h) => h.stop()))),
		);
		if (this.main) results.push(...(await Promise.allSettled([this.main.stop()])));
		results.push(
			...(await Promise.allSettled([
				this.balancer?.close(),
				this.redis?.stop(),
				this.postgres?.stop(),
			])),
		);
		const failed = results.find((r) => r.status === 'rejected');
		if (failed) throw failed.reason;
	}

	_sharedEnv() {
		return {
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(this.redis.port),
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(this.postgres.port),
			DB_POSTGRESDB_DATABASE: this.postgres.database,
			DB_POSTGRESDB_USER: this.postgres.user,
			DB_POSTGRESDB_PASSWORD: '',
			N8N_DEFAULT_BINARY_DATA_MODE: 'database',
			// Manual runs from the editor go to workers too, as teams running queue mode set it.
			OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
			N8N_WEBHOOK_URL: `${this.balancer.url}/`,
			...this.extraEnv,
		};
	}

	_host(command, name, env = {}, args = []) {
		const host = new N8nHost({
			tarball: this.tarball,
			command,
			args,
			name,
			logLevel: this.logLevel,
			echo: this.echo,
			env: { ...this._sharedEnv(), ...env },
			// One redaction list: a secret imported through main must not show up in a worker's log either.
			secrets: this._secrets,
		});
		return host;
	}

	_workerHost(number) {
		return this._host('worker', `worker-${number}`, {}, [
			`--concurrency=${this.workerConcurrency}`,
		]);
	}
}

module.exports = { QueueCluster };
