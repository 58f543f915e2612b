'use strict';
/**
 * Outgoing webhook callbacks as the gateway sends them (docs/gateway-interface.md, Callbacks): POST JSON, the receiver must answer 200 within 5 s,
 * failed attempts are retried up to 3 times after 10, 30 and 60 s. All timings are multiplied by `timeScale`
 * so tests can run the whole schedule in about a second.
 */
const http = require('node:http');
const https = require('node:https');
const { URL } = require('node:url');

const ANSWER_LIMIT_MS = 5000;
const RETRY_DELAYS_MS = [10000, 30000, 60000];

/** Resolves after ms, or rejects with the signal's reason once it aborts; the timer never holds the process. */
function sleep(ms, signal) {
	return new Promise((resolve, reject) => {
		if (signal && signal.aborted) return reject(signal.reason);
		const timer = setTimeout(
			() => {
				if (signal) signal.removeEventListener('abort', onAbort);
				resolve();
			},
			Math.max(0, ms),
		);
		if (typeof timer.unref === 'function') timer.unref();
		function onAbort() {
			clearTimeout(timer);
			reject(signal.reason);
		}
		if (signal) signal.addEventListener('abort', onAbort, { once: true });
	});
}

/**
 * One attempt. Resolves to the HTTP status, 'timeout' (no answer headers in time) or 'error' (connection
 * failure, invalid URL, cancelled). Uses a fresh connection (agent: false) so nothing lingers after close().
 */
function postOnce(url, payload, timeoutMs, signal) {
	return new Promise((resolve) => {
		let settled = false;
		let req;
		const done = (status) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			if (signal) signal.removeEventListener('abort', onAbort);
			resolve(status);
		};
		const onAbort = () => {
			if (req) req.destroy();
			done('error');
		};
		const timer = setTimeout(() => {
			if (req) req.destroy();
			done('timeout');
		}, timeoutMs);
		if (signal) {
			if (signal.aborted) return onAbort();
			signal.addEventListener('abort', onAbort, { once: true });
		}
		try {
			const target = new URL(url);
			const lib = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : null;
			if (!lib) return done('error');
			const body = Buffer.from(JSON.stringify(payload));
			req = lib.request(target, {
				method: 'POST',
				agent: false,
				headers: {
					'content-type': 'application/json',
					'content-length': body.length,
					'user-agent': 'media-gateway-simulator',
				},
			});
			req.on('response', (res) => {
				res.resume(); // the body is irrelevant; drain it so the socket can close
				done(res.statusCode);
			});
			req.on('error', () => done('error'));
			req.end(body);
		} catch {
			done('error');
		}
	});
}

/**
 * Sends one callback with the gateway's retry schedule.
 * @param {string} url
 * @param {unknown} payload
 * @param {{retry?: boolean, timeScale?: number, answerLimitMs?: number, signal?: AbortSignal, log?: object[]}} options
 *   `log` receives every attempt as it finishes (the simulator's callbackLog); `signal` cancels pending retries.
 *   `answerLimitMs` overrides the scaled answer limit (5 s × timeScale): tests that need fast retries but
 *   must not turn a receiver that is merely slow on a busy machine into a timeout keep the gateway's 5 s.
 * @returns {Promise<Array<{url, payload, attempt, status, at, elapsedMs}>>} the attempts made
 */
async function sendCallback(
	url,
	payload,
	{ retry = true, timeScale = 1, answerLimitMs, signal, log } = {},
) {
	const attempts = [];
	const maxAttempts = retry ? 1 + RETRY_DELAYS_MS.length : 1;
	const limitMs = answerLimitMs ?? ANSWER_LIMIT_MS * timeScale;
	for (let attempt = 1; attempt <= maxAttempts; attempt++) {
		if (signal && signal.aborted) break;
		const at = Date.now();
		const status = await postOnce(url, payload, limitMs, signal);
		// A reset or close while the attempt was in flight must not pollute the next test's log.
		if (signal && signal.aborted) break;
		const entry = { url, payload, attempt, status, at, elapsedMs: Date.now() - at };
		attempts.push(entry);
		if (log) log.push(entry);
		if (status === 200 || attempt === maxAttempts) break;
		try {
			await sleep(RETRY_DELAYS_MS[attempt - 1] * timeScale, signal);
		} catch {
			break;
		}
	}
	return attempts;
}

module.exports = { sendCallback, postOnce, sleep, ANSWER_LIMIT_MS, RETRY_DELAYS_MS };
