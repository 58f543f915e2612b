'use strict';
/**
 * A round-robin HTTP reverse proxy on 127.0.0.1: the "one URL in front of several webhook processes" that
 * queue-mode deployments put before n8n. Each request goes to the next backend in turn; nothing is sticky,
 * so a retried callback may reach a different process than its first delivery did, as behind a real
 * load balancer. Counts what each backend got.
 *
 *   const lb = await startBalancer(['http://127.0.0.1:5679', 'http://127.0.0.1:5680']);
 *   lb.url; lb.counts; // [n1, n2]
 *   await lb.close();
 * Backends may also be set later (lb.setBackends(urls)), for callers that need the URL first; until then
 * every request gets 503.
 */
const http = require('node:http');

const HOP_BY_HOP = new Set([
	'connection',
	'keep-alive',
	'transfer-encoding',
	'upgrade',
	'proxy-connection',
]);

async function startBalancer(backendUrls = []) {
	const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
	let backends = [];
	const counts = [];
	let next = 0;
	const setBackends = (urls) => {
		backends = urls.map((u) => new URL(u));
		counts.splice(0, counts.length, ...backends.map(() => 0));
		next = 0;
	};
	setBackends(backendUrls);

	const server = http.createServer((req, res) => {
		if (backends.length === 0) {
			res.writeHead(503, { 'content-type': 'text/plain' });
			res.end('balancer: no backends yet');
			return;
		}
		const index = next;
		next = (next + 1) % backends.length;
		counts[index] += 1;
		const target = backends[index];
		const headers = Object.fromEntries(
			Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
		);
		const upstream = http.request(
			{
				host: target.hostname,
				port: target.port,
				method: req.method,
				path: req.url,
				headers,
				agent,
			},
			(answer) => {
				const out = Object.fromEntries(
					Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
				);
				res.writeHead(answer.statusCode ?? 502, out);
				answer.pipe(res);
			},
		);
		upstream.on('error', (error) => {
			if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
			res.end(`balancer: backend ${target.host} failed: ${error.message}`);
		});
		req.pipe(upstream);
	});
	server.keepAliveTimeout = 5000;
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', resolve);
	});
	const { port } = server.address();
	return {
		url: `http://127.0.0.1:${port}`,
		port,
		counts,
		setBackends,
		close: () =>
			new Promise((resolve) => {
				agent.destroy();
				server.closeAllConnections?.();
				server.close(() => resolve());
			}),
	};
}

module.exports = { startBalancer };
