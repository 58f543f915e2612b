'use strict';
/**
 * n8n processes and the ports they listen on. Every process runs detached, so its PID is also the
 * process-group id of n8n and its task runners; each is tracked and stopped by PID, and killed with its
 * group if the calling process exits first.
 */
const { spawn, spawnSync } = require('node:child_process');
const http = require('node:http');

/** PIDs (= process-group ids) still alive; killed if this process exits first. */
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

/** Synchronous so that the host's constructor can expose its port; the ports are held open together, so distinct. */
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
	const ports = String(result.stdout || '')
		.split(',')
		.map(Number)
		.filter((p) => p > 0);
	if (ports.length !== count)
		throw new Error(`could not pick ${count} free ports: ${result.stderr}`);
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

/** The HTTP status of a GET, 0 when nothing answers. */
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

/** The n8n processes of one host: started with n8n's binary on the line's Node, their output into one log. */
class N8nProcesses {
	/**
	 * @param {object} options
	 * @param {import('./lines').LinePaths} options.paths
	 * @param {string} options.cwd
	 * @param {import('./log').LogCapture} options.log where every output line goes
	 */
	constructor({ paths, cwd, log }) {
		this.paths = paths;
		this.cwd = cwd;
		this.log = log;
		/** @type {Set<import('node:child_process').ChildProcess>} */
		this.children = new Set();
		this._outputEnded = new WeakMap();
	}

	/** `n8n <args>`, detached; its output lines are recorded under `source`. */
	spawn(args, source, env) {
		const child = spawn(this.paths.NODE_BIN, [this.paths.N8N_BIN, ...args], {
			cwd: this.cwd,
			env,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		livePids.add(child.pid);
		this.children.add(child);
		// Resolves once both output streams have ended, i.e. the last log line has been recorded.
		this._outputEnded.set(
			child,
			Promise.all(
				[child.stdout, child.stderr].map(
					(stream) => new Promise((resolve) => stream.once('close', resolve)),
				),
			),
		);
		for (const stream of [child.stdout, child.stderr]) {
			let buffer = '';
			stream.setEncoding('utf8');
			stream.on('data', (chunk) => {
				buffer += chunk;
				const lines = buffer.split('\n');
				buffer = lines.pop();
				for (const line of lines) this.log.record(source, line);
			});
			stream.on('end', () => {
				if (buffer) this.log.record(source, buffer);
				buffer = '';
			});
		}
		child.once('exit', () => {
			this.children.delete(child);
			// Leftover group members (a task runner) must not outlive n8n.
			if (groupAlive(child.pid)) killGroup(child.pid, 'SIGKILL');
			livePids.delete(child.pid);
		});
		return child;
	}

	/** SIGTERM to the PID, SIGKILL to its group after `graceMs`; resolves once its last lines are recorded. */
	async terminate(child, graceMs) {
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
		await this.lastLines(child);
	}

	/**
	 * Waits until the child's output streams have ended after its exit ('end' may trail 'exit'), so its
	 * last lines are in the log; the deadline only guards against a stray process keeping a pipe open.
	 */
	async lastLines(child) {
		const timer = deadline(10000);
		await Promise.race([this._outputEnded.get(child), timer.promise]);
		timer.cancel();
	}
}

module.exports = { N8nProcesses, killGroup, pickFreePorts, sleep, deadline, httpStatus };
