'use strict';
/**
 * Throwaway PostgreSQL and Redis servers for n8n's queue mode: each in a fresh temp data directory, on a free
 * port of 127.0.0.1, started in the foreground as a child of this process and stopped by its PID.
 * Install the server packages first: bash dev/n8n-host/install-services.sh
 *
 *   const pg = await startPostgres();   // { port, database: 'n8n', user: 'postgres', pid, stop() }
 *   const redis = await startRedis();   // { port, pid, stop() }
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const livePids = new Set();
process.once('exit', () => {
	for (const pid of livePids) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// gone already
		}
	}
});

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

function postgresBinDir() {
	const root = '/usr/lib/postgresql';
	const versions = fs.existsSync(root)
		? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')))
		: [];
	if (versions.length === 0) {
		throw new Error(
			'PostgreSQL server not found in /usr/lib/postgresql: run `bash dev/n8n-host/install-services.sh`',
		);
	}
	versions.sort((a, b) => Number(b) - Number(a));
	return path.join(root, versions[0], 'bin');
}

/** PostgreSQL refuses to run as root: as root, run it as the `postgres` user the Debian package creates. */
function asServerUser(command, args) {
	if (process.getuid?.() !== 0) return [command, args];
	// /usr/sbin may be missing from a CI job's PATH.
	const runuser = ['/usr/sbin/runuser', '/sbin/runuser'].find((p) => fs.existsSync(p)) ?? 'runuser';
	return [runuser, ['-u', 'postgres', '--', command, ...args]];
}

/** Keeps a server's output (last 200 lines) for error messages. */
function captureOutput(child) {
	const lines = [];
	for (const stream of [child.stdout, child.stderr]) {
		stream.setEncoding('utf8');
		stream.on('data', (chunk) => {
			lines.push(...chunk.split('\n').filter(Boolean));
			if (lines.length > 200) lines.splice(0, lines.length - 200);
		});
	}
	return () => lines.slice(-30).join('\n');
}

function spawnServer(command, args, options) {
	const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
	livePids.add(child.pid);
	const output = captureOutput(child);
	const exited = new Promise((resolve) =>
		child.once('exit', (code, signal) => resolve({ code, signal })),
	);
	exited.then(() => livePids.delete(child.pid));
	return { child, output, exited };
}

/** Sends `signal` to `pid`, then SIGKILL after `graceMs` if `exited` has not settled. */
async function stopByPid(pid, signal, exited, graceMs = 10000) {
	try {
		process.kill(pid, signal);
	} catch {
		return; // already gone
	}
	let timer;
	const late = new Promise((resolve) => {
		timer = setTimeout(() => resolve('late'), graceMs);
	});
	const outcome = await Promise.race([exited, late]);
	clearTimeout(timer);
	if (outcome === 'late') {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// gone meanwhile
		}
		await exited;
	}
}

async function waitUntil(check, { timeoutMs, what, output, exited }) {
	const t0 = Date.now();
	let gone = false;
	exited.then(() => {
		gone = true;
	});
	for (;;) {
		if (gone) throw new Error(`${what} exited during start-up:\n${output()}`);
		if (await check()) return;
		if (Date.now() - t0 > timeoutMs)
			throw new Error(`${what} not ready after ${timeoutMs} ms:\n${output()}`);
		await sleep(100);
	}
}

/**
 * A PostgreSQL cluster tuned for throwaway use (no fsync), with a database `n8n` owned by `postgres`,
 * trust authentication on 127.0.0.1 only.
 */
async function startPostgres({ timeoutMs = 60000 } = {}) {
	const bin = postgresBinDir();
	// As root the server runs as `postgres`, which must reach the data directory: /tmp, not a private TMPDIR.
	const dir = await fsp.mkdtemp(
		path.join(process.getuid?.() === 0 ? '/tmp' : os.tmpdir(), 'n8n-host-pg-'),
	);
	const dataDir = path.join(dir, 'data');
	await fsp.mkdir(dataDir, { mode: 0o700 });
	if (process.getuid?.() === 0) {
		const chown = spawnSync('chown', ['-R', 'postgres:postgres', dir], { encoding: 'utf8' });
		if (chown.status !== 0) throw new Error(`chown of ${dir} to postgres failed: ${chown.stderr}`);
	}
	const [initCmd, initArgs] = asServerUser(path.join(bin, 'initdb'), [
		'-D',
		dataDir,
		'-U',
		'postgres',
		'-A',
		'trust',
		'-E',
		'UTF8',
		'--no-locale',
		'--no-sync',
	]);
	const init = spawnSync(initCmd, initArgs, { encoding: 'utf8', timeout: 120000 });
	if (init.status !== 0) {
		await fsp.rm(dir, { recursive: true, force: true });
		throw new Error(`initdb failed (${init.status}): ${init.stderr || init.stdout}`);
	}
	const port = await freePort();
	const [cmd, args] = asServerUser(path.join(bin, 'postgres'), [
		'-D',
		dataDir,
		'-p',
		String(port),
		'-k',
		dataDir,
		'-c',
		'listen_addresses=127.0.0.1',
		// Test data: durability is worth nothing here, speed is.
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
		'-c',
		'max_connections=200',
	]);
	const server = spawnServer(cmd, args, {});
	// The postmaster's own PID (runuser stays in between as root): SIGINT there is a fast shutdown.
	const postmasterPid = () => {
		try {
			return Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
		} catch {
			return 0;
		}
	};
	const stop = async () => {
		const pid = postmasterPid() || server.child.pid;
		await stopByPid(pid, 'SIGINT', server.exited);
		await fsp.rm(dir, { recursive: true, force: true, maxRetries: 3 });
	};
	try {
		await waitUntil(
			() =>
				spawnSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q'])
					.status === 0,
			{ timeoutMs, what: 'PostgreSQL', output: server.output, exited: server.exited },
		);
		const created = spawnSync(
			path.join(bin, 'createdb'),
			['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'n8n'],
			{
				encoding: 'utf8',
			},
		);
		if (created.status !== 0) throw new Error(`createdb failed: ${created.stderr}`);
	} catch (error) {
		await stop();
		throw error;
	}
	return { port, database: 'n8n', user: 'postgres', pid: server.child.pid, stop };
}

/** Answers PING with +PONG once Redis accepts commands. */
function redisPing(port) {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		let answer = '';
		socket.setTimeout(1000, () => socket.destroy());
		socket.on('connect', () => socket.write('PING\r\n'));
		socket.on('data', (chunk) => {
			answer += chunk;
			if (answer.includes('\r\n')) socket.end();
		});
		socket.on('close', () => resolve(answer.startsWith('+PONG')));
		socket.on('error', () => resolve(false));
	});
}

/** An in-memory Redis (no snapshots, no append-only file). */
async function startRedis({ timeoutMs = 30000 } = {}) {
	const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'n8n-host-redis-'));
	const port = await freePort();
	const server = spawnServer(
		'redis-server',
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
			'--daemonize',
			'no',
		],
		{},
	);
	const stop = async () => {
		await stopByPid(server.child.pid, 'SIGTERM', server.exited);
		await fsp.rm(dir, { recursive: true, force: true });
	};
	try {
		await waitUntil(() => redisPing(port), {
			timeoutMs,
			what: 'Redis',
			output: server.output,
			exited: server.exited,
		});
	} catch (error) {
		await stop();
		throw error;
	}
	return { port, pid: server.child.pid, stop };
}

module.exports = { startPostgres, startRedis };
