/**
 * The trigger's webhook() behind a small HTTP server that handles requests the way n8n 2.41.1 does
 * for this node (JSON body parsing, then webhook(), then the onReceived answer), fed by the gateway
 * simulator's real callback sender with the gateway's retry schedule (docs/gateway-interface.md, Callbacks; time-scaled). Not a real n8n:
 * the e2e suite covers that.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { answerLikeN8n, trigger, webhookContext } from './fakes';
import { videoSuccess } from './samples';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startSimulator } = require('../../dev/simulator') as {
	startSimulator: (options: object) => Promise<Simulator>;
};

interface Attempt {
	attempt: number;
	at: number;
	status: number | 'timeout' | 'error';
	elapsedMs: number;
}
interface Simulator {
	url: string;
	callbackLog: Array<Attempt & { url: string; payload: IDataObject }>;
	sendCallback(url: string, payload: unknown, options?: { retry?: boolean }): Promise<Attempt[]>;
	reset(): void;
	close(): Promise<void>;
}

const KEY = 'sim-key-trigger';
// Retries after 0.4, 1.2 and 2.4 s. The answer limit stays the gateway's 5 s: scaled down too, a receiver
// that is merely slow on a busy machine would look like one that did not answer.
const TIME_SCALE = 0.04;
const ANSWER_LIMIT_MS = 5000;

let sim: Simulator;
let server: http.Server;
let receiverUrl: string;
let parameters: IDataObject = {};
let staticData: IDataObject = {};
// Holds the next answer back (after the node has run) until the gateway has given up waiting for it.
let holdNextAnswer = false;
const executions: INodeExecutionData[][] = [];

function readBody(req: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
	const gatewayGone = new Promise((resolve) => res.once('close', resolve));
	const raw = await readBody(req);
	const url = new URL(req.url ?? '/', 'http://127.0.0.1');
	let body: unknown = {};
	if (raw.length > 0 && req.headers['content-type']?.startsWith('application/json')) {
		try {
			body = JSON.parse(raw);
		} catch {
			// n8n answers unparsable JSON itself (UnprocessableRequestError) before the node runs.
			res
				.writeHead(422, { 'content-type': 'application/json' })
				.end('{"message":"Failed to parse request body"}');
			return;
		}
	}
	const { ctx, res: fakeRes } = webhookContext(
		{
			body,
			headers: req.headers as Record<string, string>,
			query: Object.fromEntries(url.searchParams),
		},
		{ parameters, staticData },
	);
	const result = await trigger.webhook.call(ctx);
	const answer = answerLikeN8n(result, fakeRes);
	if (answer.executionStarted) executions.push(result.workflowData![0]);
	if (holdNextAnswer) {
		holdNextAnswer = false;
		await gatewayGone;
		return;
	}
	res
		.writeHead(answer.status, { 'content-type': 'application/json' })
		.end(JSON.stringify(answer.body));
}

beforeAll(async () => {
	sim = await startSimulator({
		apiKey: KEY,
		videoCompleteAfterMs: 100,
		callbackTimeScale: TIME_SCALE,
		callbackAnswerLimitMs: ANSWER_LIMIT_MS,
	});
	server = http.createServer((req, res) => {
		handle(req, res).catch((error: Error) => res.writeHead(500).end(error.message));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/b7d6a1b0/webhook`;
	// Warm-up (module loading, JIT) so the first measured answer is not a cold start.
	await sim.sendCallback(
		receiverUrl,
		{ ...videoSuccess(), status: 'processing' },
		{ retry: false },
	);
});

beforeEach(() => {
	sim.reset();
	parameters = {};
	staticData = {};
	executions.length = 0;
	holdNextAnswer = false;
});

afterAll(async () => {
	await sim.close();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Polls for an event with a generous deadline (a busy machine is slow, not wrong). */
const waitFor = async (check: () => boolean, what: string, timeoutMs = 60_000) => {
	const end = Date.now() + timeoutMs;
	while (!check()) {
		if (Date.now() > end) throw new Error(`waited ${timeoutMs} ms for ${what}; it did not happen`);
		await new Promise((r) => setTimeout(r, 10));
	}
};

it('answers a callback 200 inside the time limit on the first attempt and starts one execution', async () => {
	const attempts = await sim.sendCallback(receiverUrl, videoSuccess());
	expect(attempts).toHaveLength(1);
	// 200, not 'timeout': answered inside the limit, which the simulator enforces (callbackAnswerLimitMs).
	expect(attempts[0].status).toBe(200);
	expect(executions).toHaveLength(1);
	expect(executions[0][0].json).toMatchObject({
		kind: 'video',
		taskId: 'vid-task-1',
		state: 'succeeded',
	});
});

it('starts no second execution when the gateway sends the same callback again', async () => {
	await sim.sendCallback(receiverUrl, videoSuccess());
	const again = await sim.sendCallback(receiverUrl, videoSuccess());
	expect(again.map((a) => a.status)).toEqual([200]);
	expect(executions).toHaveLength(1);
});

it('when the gateway misses an answer and retries, the retry is answered 200 without a second execution', async () => {
	holdNextAnswer = true; // the gateway gives up after its 5 s, then retries 0.4 s later
	const attempts = await sim.sendCallback(receiverUrl, videoSuccess());
	expect(attempts.map((a) => a.status)).toEqual(['timeout', 200]);
	expect(executions).toHaveLength(1);
});

it('a rejected callback is retried by the gateway on its retry schedule and never starts an execution', async () => {
	parameters = { authentication: 'queryToken', secretToken: 'right-token' };
	const attempts = await sim.sendCallback(`${receiverUrl}?token=wrong`, videoSuccess());
	expect(attempts.map((a) => a.status)).toEqual([401, 401, 401, 401]);
	// Spacing of the gateway's retries (10, 30, 60 s), scaled.
	const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i].at);
	[10_000, 30_000, 60_000].forEach((delay, i) =>
		expect(gaps[i]).toBeGreaterThanOrEqual(delay * TIME_SCALE),
	);
	expect(executions).toHaveLength(0);

	const accepted = await sim.sendCallback(`${receiverUrl}?token=right-token`, videoSuccess());
	expect(accepted.map((a) => a.status)).toEqual([200]);
	expect(executions).toHaveLength(1);
});

it('a body that is not a callback gets 400 on every attempt', async () => {
	const attempts = await sim.sendCallback(receiverUrl, { hello: 'world' });
	expect(attempts.map((a) => a.status)).toEqual([400, 400, 400, 400]);
	expect(executions).toHaveLength(0);
});

it('receives the callbacks of a real simulated video task: the processing one is ignored, the final one runs', async () => {
	const response = await fetch(`${sim.url}/v1/videos`, {
		method: 'POST',
		headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
		body: JSON.stringify({
			model: 'vidmodel',
			prompt: 'a lighthouse at dusk',
			size: '1280x720',
			notifyHook: receiverUrl,
		}),
	});
	expect(response.status).toBe(200);
	const task = (await response.json()) as { id: string };

	await waitFor(() => sim.callbackLog.length >= 2, 'two callback attempts in the simulator’s log');
	expect(sim.callbackLog.map((entry) => [entry.payload.status, entry.status])).toEqual([
		['processing', 200],
		['succeed', 200],
	]);
	expect(executions).toHaveLength(1);
	const json = executions[0][0].json;
	expect(json).toMatchObject({
		kind: 'video',
		taskId: task.id,
		status: 'succeed',
		state: 'succeeded',
		progress: 100,
	});
	expect(json.resultUrl).toMatch(new RegExp(`^${sim.url}/files/videos/`));
	expect(json.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
});

it('passes a failed simulated task with its state, keeping the message in payload', async () => {
	const response = await fetch(`${sim.url}/v1/videos`, {
		method: 'POST',
		headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
		body: JSON.stringify({
			model: 'vidmodel',
			prompt: 'this one will [fail]',
			notifyHook: receiverUrl,
		}),
	});
	expect(response.status).toBe(200);
	await waitFor(() => executions.length === 1, 'one started execution');
	const json = executions[0][0].json as IDataObject;
	expect(json).toMatchObject({ kind: 'video', state: 'failed', resultUrl: null });
	expect((json.payload as IDataObject).message).toEqual(expect.any(String));
});
