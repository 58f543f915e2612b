/**
 * Small programmable HTTP servers, each its own origin (scheme + host + port) on loopback: a fake
 * gateway on 127.0.0.1, and a "CDN" or "attacker" on 127.0.0.2 or on another port of 127.0.0.1.
 * Every request is recorded with the Authorization header it carried, so a test can prove which
 * origins saw the API key.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
	method: string;
	path: string;
	authorization?: string;
	body: string;
}

export type Handler = (
	req: http.IncomingMessage,
	res: http.ServerResponse,
	body: string,
) => void | Promise<void>;

export interface Origin {
	/** e.g. http://127.0.0.2:41234 (no trailing slash) */
	url: string;
	requests: SeenRequest[];
	/** Routes by exact path (query ignored); unknown paths get 404 JSON. */
	route(path: string, handler: Handler): void;
	/** Responses this origin could not finish because the client hung up. */
	abortedResponses: number;
	reset(): void;
	close(): Promise<void>;
}

export async function startOrigin(host: '127.0.0.1' | '127.0.0.2'): Promise<Origin> {
	const routes = new Map<string, Handler>();
	const sockets = new Set<import('node:net').Socket>();
	const origin: Origin = {
		url: '',
		requests: [],
		abortedResponses: 0,
		route(path, handler) {
			routes.set(path, handler);
		},
		reset() {
			routes.clear();
			origin.requests.length = 0;
			origin.abortedResponses = 0;
		},
		async close() {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8');
			const path = (req.url ?? '/').split('?')[0];
			origin.requests.push({
				method: req.method ?? 'GET',
				path,
				authorization: req.headers.authorization,
				body,
			});
			res.on('close', () => {
				if (!res.writableFinished) origin.abortedResponses++;
			});
			const handler = routes.get(path);
			if (!handler) {
				res
					.writeHead(404, { 'content-type': 'application/json' })
					.end('{"error":{"message":"not found"}}');
				return;
			}
			void Promise.resolve(handler(req, res, body)).catch((error: unknown) => {
				res.destroy(error as Error);
			});
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, host, resolve));
	origin.url = `http://${host}:${(server.address() as AddressInfo).port}`;
	return origin;
}

export function json(
	res: http.ServerResponse,
	status: number,
	payload: unknown,
	headers: Record<string, string> = {},
): void {
	res
		.writeHead(status, { 'content-type': 'application/json', ...headers })
		.end(JSON.stringify(payload));
}

export function redirect(res: http.ServerResponse, to: string, status = 302): void {
	res.writeHead(status, { location: to }).end();
}
