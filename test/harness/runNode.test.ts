import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { HarnessFixture, HarnessFixtureApi, fixtureEvents } from './fixtures';
import { runNode } from '../../dev/harness/runNode';
import type { RunNodeOptions } from '../../dev/harness/runNode';

const API_KEY = 'fixture-secret-key-123';

interface SeenRequest {
	path: string;
	authorization?: string;
	closedEarly: boolean;
	/** Resolves when the response has closed (answered, or the client went away). */
	closed: Promise<void>;
}

let server: http.Server;
let baseUrl: string;
const seen: SeenRequest[] = [];
/** Called with each request as it arrives, so a test can act on that event instead of on a timer. */
let onRequest: (record: SeenRequest) => void = () => undefined;

beforeAll(async () => {
	server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		let closed!: () => void;
		const record: SeenRequest = {
			path: url.pathname,
			authorization: req.headers.authorization,
			closedEarly: false,
			closed: new Promise<void>((resolve) => (closed = resolve)),
		};
		seen.push(record);
		// 'close' on the response before it was ended means the client went away (aborted).
		res.on('close', () => {
			if (!res.writableEnded) record.closedEarly = true;
			closed();
		});
		onRequest(record);
		if (url.pathname === '/echo') {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					authorization: req.headers.authorization ?? null,
					client: url.searchParams.get('client'),
				}),
			);
		} else if (url.pathname === '/unauthorized') {
			res.writeHead(401, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ message: 'invalid api key' }));
		} else if (url.pathname === '/hang') {
			// Never answers: only a cancelled request ends this.
		} else {
			res.writeHead(404).end();
		}
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
	seen.length = 0;
	onRequest = () => undefined;
});

function fixtureRun(overrides: Partial<RunNodeOptions>) {
	return runNode({
		nodeType: new HarnessFixture(),
		credentialTypes: [new HarnessFixtureApi()],
		credentials: { harnessFixtureApi: { apiKey: API_KEY, baseUrl } },
		...overrides,
	});
}

describe('runNode harness', () => {
	test('httpRequestWithAuthentication applies the generic authenticate block', async () => {
		const result = await fixtureRun({ parameters: { operation: 'request', path: '/echo' } });

		expect(result.error).toBeUndefined();
		expect(result.executionStatus).toBe('success');
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toEqual({ authorization: `Bearer ${API_KEY}`, client: 'harness' });
		expect(seen.map((r) => r.authorization)).toEqual([`Bearer ${API_KEY}`]);
	});

	test('an HTTP 401 surfaces as n8n NodeApiError with its httpCode', async () => {
		const result = await fixtureRun({
			parameters: { operation: 'request', path: '/unauthorized' },
		});

		expect(result.executionStatus).toBe('error');
		expect(result.items).toEqual([]);
		expect(result.error).toMatchObject({ name: 'NodeApiError', httpCode: '401' });
		expect(result.nodeError?.httpCode).toBe('401');
		// n8n's NodeApiError must not carry the Authorization header into the stored error or logs.
		expect(JSON.stringify(result.error?.raw)).not.toContain(API_KEY);
		expect(
			result.logs.some((l) => l.level === 'error' && l.message.includes('Authorization failed')),
		).toBe(true);
		expect(JSON.stringify(result.logs)).not.toContain(API_KEY);
	});

	test('credentials missing from the run fail as in n8n', async () => {
		const result = await fixtureRun({ credentials: {}, parameters: { operation: 'request' } });

		expect(result.executionStatus).toBe('error');
		expect(result.error?.message).toMatch(/credentials/i);
		expect(seen).toHaveLength(0);
	});

	test.each(['filesystem', 'default'] as const)(
		'prepareBinaryData / getBinaryDataBuffer round-trip (%s mode)',
		async (binaryDataMode) => {
			const result = await fixtureRun({
				binaryDataMode,
				parameters: { operation: 'binary' },
				input: [
					{
						json: { n: 1 },
						binary: {
							data: {
								data: Buffer.from('hello binary').toString('base64'),
								mimeType: 'text/plain',
								fileName: 'in.txt',
							},
						},
					},
				],
			});

			expect(result.error).toBeUndefined();
			const [item] = result.items;
			expect(item.json).toEqual({ inputLength: 12 });
			expect(item.binary?.out).toMatchObject({ mimeType: 'text/plain', fileName: 'upper.txt' });
			if (binaryDataMode === 'filesystem') {
				// Real 2.x storage: the item holds a reference, not the bytes.
				expect(item.binary?.out.id).toMatch(/^filesystem-v2:/);
			} else {
				expect(item.binary?.out.id).toBeUndefined();
				expect(item.binary?.out.data).toBe(Buffer.from('HELLO BINARY').toString('base64'));
			}
			expect((await result.binaryBuffer(item, 'out')).toString('utf8')).toBe('HELLO BINARY');
			await expect(result.binaryBuffer(item, 'missing')).rejects.toThrow(/no binary property/);
		},
	);

	test('a NodeOperationError with itemIndex surfaces in result.error', async () => {
		const result = await fixtureRun({
			parameters: { operation: 'fail', failOn: 1 },
			input: [{ json: {} }, { json: {} }, { json: {} }],
		});

		expect(result.executionStatus).toBe('error');
		expect(result.items).toEqual([]);
		expect(result.error).toMatchObject({
			name: 'NodeOperationError',
			message: 'Item 1 failed on purpose',
			description: 'fixture failure description',
			itemIndex: 1,
		});
	});

	test('continueOnFail turns the failing item into an error item', async () => {
		const result = await fixtureRun({
			continueOnFail: true,
			parameters: { operation: 'fail', failOn: 1 },
			input: [{ json: {} }, { json: {} }, { json: {} }],
		});

		expect(result.executionStatus).toBe('success');
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.json)).toEqual([
			{ ok: 0 },
			{ error: 'Item 1 failed on purpose' },
			{ ok: 2 },
		]);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	test('continueOnFail on a node that throws outright: n8n passes the input through but marks the run as error', async () => {
		const result = await fixtureRun({
			continueOnFail: true,
			parameters: { operation: 'throwRaw' },
			input: [{ json: { a: 1 } }],
		});

		// WorkflowExecute 2.41 keeps the node's error as the execution error when the throwing node is
		// the last one, even though "continue" put the input items on its output.
		expect(result.items.map((i) => i.json)).toEqual([{ a: 1 }]);
		expect(result.nodeError?.message).toBe('raw failure from fixture');
		expect(result.executionStatus).toBe('error');
		expect(result.error?.message).toBe('raw failure from fixture');
	});

	test('expression parameters resolve per item', async () => {
		const result = await fixtureRun({
			parameters: { operation: 'echo', text: '={{ $json.p }}-{{ $itemIndex }}' },
			input: [{ json: { p: 'a' } }, { json: { p: 'b' } }],
		});

		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.json.text)).toEqual(['a-0', 'b-1']);
	});

	test('typeVersion selects the node version (default: the highest)', async () => {
		const latest = await fixtureRun({ parameters: { operation: 'echo', text: 'x' } });
		const v1 = await fixtureRun({ typeVersion: 1, parameters: { operation: 'echo', text: 'x' } });

		expect(latest.items[0].json.version).toBe(2);
		expect(v1.items[0].json.version).toBe(1);
	});

	test('abortSignal cancels the execution and the in-flight request', async () => {
		const controller = new AbortController();
		// Cancelled once the request is in flight (the server has it), not after a guessed delay.
		onRequest = () => controller.abort();
		const result = await fixtureRun({
			abortSignal: controller.signal,
			parameters: { operation: 'request', path: '/hang' },
		});

		expect(result.cancelled).toBe(true);
		expect(result.stoppedAfterCancel).toBe(true);
		expect(result.executionStatus).toBe('canceled');
		// Promptly: /hang never answers, so only the cancel could end the run, and stoppedAfterCancel says the
		// node stopped within the harness's grace; no wall-clock bound of its own that a busy machine can break.
		// The cancel signal reached the HTTP request: the server saw the client go away.
		expect(seen).toHaveLength(1);
		await seen[0].closed;
		expect(seen[0].closedEarly).toBe(true);
	});

	test('timeoutMs cancels like n8n workflow timeout', async () => {
		const result = await fixtureRun({
			timeoutMs: 300,
			parameters: { operation: 'request', path: '/hang' },
		});

		expect(result.cancelled).toBe(true);
		expect(result.timedOut).toBe(true);
		expect(result.stoppedAfterCancel).toBe(true);
		expect(result.executionStatus).toBe('canceled');
		// The aborted request is what the node reports, as in n8n.
		expect(result.error).toMatchObject({ name: 'NodeApiError', httpCode: 'ERR_CANCELED' });
	});

	test('getExecutionCancelSignal aborts for node code polling it', async () => {
		const controller = new AbortController();
		// Cancelled once the node is polling the signal, not after a guessed delay.
		fixtureEvents.once('polling', () => controller.abort());
		const result = await fixtureRun({
			abortSignal: controller.signal,
			parameters: { operation: 'poll' },
		});

		expect(result.cancelled).toBe(true);
		expect(result.timedOut).toBe(false);
		expect(result.stoppedAfterCancel).toBe(true);
		expect(result.executionStatus).toBe('canceled');
		expect(result.nodeError?.message).toBe('Stopped: execution was cancelled');
	});

	test('a node that ignores the cancel signal is reported as not stopped', async () => {
		const controller = new AbortController();
		// Cancelled once the node runs; it keeps running until this test lets it finish, so however slow the
		// machine, it is still running when the harness's grace (200 ms) ends.
		let finish!: () => void;
		fixtureEvents.once('ignoring', (release: () => void) => {
			finish = release;
			controller.abort();
		});
		const result = await fixtureRun({
			abortSignal: controller.signal,
			cancelGraceMs: 200,
			parameters: { operation: 'ignoreCancel' },
		});

		expect(result.cancelled).toBe(true);
		expect(result.stoppedAfterCancel).toBe(false);
		expect(result.executionStatus).toBe('canceled');
		// Let the ignoring node finish so it does not outlive this test file.
		const done = new Promise((resolve) => fixtureEvents.once('ignoreCancelDone', resolve));
		finish();
		await done;
	});

	test('the logs of the run are captured', async () => {
		const result = await fixtureRun({ parameters: { operation: 'echo', text: 'x' } });

		expect(result.logs.some((l) => l.message.includes('Workflow execution started'))).toBe(true);
	});
});
