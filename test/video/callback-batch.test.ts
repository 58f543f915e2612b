/**
 * Completion → "Wait for Callback" for many items: the parking half runs through n8n-core's real
 * WorkflowExecute (dev/harness) against the gateway simulator over real HTTP; the stack entry n8n
 * would persist is then handed to the node's webhook, as n8n's waiting-webhooks code does, with a
 * callback body and the same simulator behind it. What the gateway sees, what the execution keeps
 * and what each callback is answered are asserted. The real n8n runs of the same paths are in
 * test/e2e/wait-for-callback*.test.js and test/queue/wait-for-callback-batch.test.js.
 */
import type {
	IDataObject,
	IExecuteData,
	IExecuteFunctions,
	IN8nHttpFullResponse,
	INode,
	INodeExecutionData,
	INodeParameters,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { WorkflowExecute } from 'n8n-core';

import { MediaGatewayStoryboard } from '../../nodes/MediaGatewayStoryboard/MediaGatewayStoryboard.node';
import { MediaGatewayVideo } from '../../nodes/MediaGatewayVideo/MediaGatewayVideo.node';
import {
	BATCH_METADATA_KEY,
	type CallbackBatch,
	callbackWaitWebhook,
	MAX_BATCH_ITEMS,
	readBatch,
	startCallbackWait,
} from '../../nodes/shared/videoTask/callbackWait';
import {
	API_KEY,
	posts,
	runGateway,
	startSim,
	taskGets,
	type RunOptions,
	type Simulator,
} from './helpers';

/** Long enough that nothing finishes on its own while a test pokes the webhook. */
const RENDER_MS = 60_000;

let sim: Simulator;

beforeAll(async () => {
	sim = await startSim({ videoCompleteAfterMs: RENDER_MS });
});

afterAll(async () => {
	await sim.close();
});

beforeEach(() => {
	sim.reset();
});

function params(overrides: INodeParameters = {}): INodeParameters {
	return {
		operation: 'create',
		model: 'vidmodel',
		prompt: '={{ $json.prompt }}',
		size: '1280x720',
		duration: 5,
		referenceImageSource: 'none',
		completion: 'callback',
		callbackWaitLimitMinutes: 60,
		options: {},
		...overrides,
	};
}

const prompts = (n: number, mark = (i: number) => '') =>
	Array.from({ length: n }, (_, i) => ({ json: { prompt: `Clip ${i}${mark(i)}` } }));

const park = (
	input: Array<{ json: IDataObject }>,
	overrides: INodeParameters = {},
	options: RunOptions = {},
) =>
	runGateway(sim, new MediaGatewayVideo(), params(overrides), {
		input,
		mode: 'webhook',
		...options,
	});

/** The stack entry n8n keeps for the waiting node: what its webhook later sees as `executeData`. */
function waitingEntry(result: Awaited<ReturnType<typeof park>>): IExecuteData {
	expect(result.executionStatus).toBe('waiting');
	const entry = result.run.data.executionData?.nodeExecutionStack[0];
	expect(entry).toBeDefined();
	// What n8n writes to its database: a JSON round trip of the entry.
	const stored = JSON.parse(JSON.stringify(entry)) as IExecuteData;
	executionIds.set(stored, `unit-${executionIds.size + 1}-${Date.now()}`);
	return stored;
}

/** A distinct execution id per parked entry, as n8n gives every execution its own. */
const executionIds = new Map<IExecuteData, string>();

function batchOf(entry: IExecuteData): CallbackBatch {
	const batch = readBatch(entry.metadata);
	expect(batch).toBeDefined();
	return batch!;
}

const taskIdsOf = (entry: IExecuteData) =>
	batchOf(entry).entries.map((e) => ('taskId' in e ? e.taskId : undefined));

/** Marks a simulator task finished now, as its clock would. */
function finish(taskId: string): void {
	const task = sim.tasks.get(taskId)!;
	task.completeAt = Date.now() - 1;
}

interface Answer {
	status: number;
	body: IDataObject;
	result: IWebhookResponseData;
}

/**
 * Calls the node's webhook the way n8n's waiting-webhooks code does: with the waiting stack entry
 * as execute data, the callback as body, and n8n's HTTP helper (here: fetch) for the gateway.
 */
async function deliver(
	entry: IExecuteData,
	body: unknown,
	apiKey = API_KEY,
	webhook: typeof callbackWaitWebhook = callbackWaitWebhook,
): Promise<Answer> {
	const answer = { status: 0, body: {} as IDataObject };
	const response = {
		status(code: number) {
			answer.status = code;
			return response;
		},
		json(data: IDataObject) {
			answer.body = data;
			return response;
		},
	};
	const node = entry.node as INode;
	const ctx = {
		executeData: entry,
		getExecutionId: () => executionIds.get(entry) ?? 'unit-unknown',
		getNode: () => node,
		getBodyData: () => body,
		getResponseObject: () => response,
		getCredentials: async () => ({ apiKey, baseUrl: sim.url }),
		helpers: {
			async httpRequestWithAuthentication(
				this: unknown,
				_type: string,
				options: { method: string; url: string; headers?: Record<string, string> },
			): Promise<IN8nHttpFullResponse> {
				const res = await fetch(options.url, {
					method: options.method,
					headers: { ...options.headers, authorization: `Bearer ${apiKey}` },
				});
				const text = await res.text();
				return { statusCode: res.status, body: text ? JSON.parse(text) : {}, headers: {} };
			},
		},
	} as unknown as IWebhookFunctions;
	const result = await webhook(ctx);
	// A resume answered by n8n itself once it accepted the resume (responseMode onReceived): 200 and the body.
	if (answer.status === 0 && result.webhookResponse !== undefined) {
		return { status: 200, body: result.webhookResponse as IDataObject, result };
	}
	return { ...answer, result };
}

const videoCallback = (id: string, status: string, extra: IDataObject = {}) => ({
	id,
	status,
	type: 'video',
	output: { video_url: `https://forged.example.com/${id}.mp4`, cover_url: '', duration: 5 },
	created_at: 1763700000,
	updated_at: 1763700042,
	...extra,
});

describe('parking a batch', () => {
	test('20 items: every request validated, 20 tasks created with the resume URL, one park, 20 waiting items in order', async () => {
		const result = await park(prompts(20), { options: { concurrency: 5 } });
		const entry = waitingEntry(result);
		const created = posts(sim, '/v1/videos');
		expect(created).toHaveLength(20);
		const hooks = new Set(created.map((r) => (r.body as IDataObject).notifyHook));
		expect(hooks.size).toBe(1);
		expect([...hooks][0]).toMatch(
			/^http:\/\/127\.0\.0\.1:5678\/webhook-waiting\/[^?]+\?signature=/,
		);
		const ids = taskIdsOf(entry);
		expect(result.items.map((i) => i.json.taskId)).toEqual(ids);
		expect(result.items.map((i) => i.pairedItem)).toEqual(ids.map((_, item) => ({ item })));
		expect(result.items.map((i) => sim.tasks.get(String(i.json.taskId))!.prompt)).toEqual(
			Array.from({ length: 20 }, (_, i) => `Clip ${i}`),
		);
		expect(
			result.items.every((i) => i.json.waitingForCallback === true && i.json.state === 'running'),
		).toBe(true);
		const batch = batchOf(entry);
		expect(batch).toMatchObject({ continueOnFail: false, concurrency: 5, limitMs: 3_600_000 });
		// Armed for the wait limit: names every task, says how to fetch them.
		const armed = entry.metadata?.resumeError as unknown as {
			message: string;
			description: string;
		};
		expect(armed.message).toBe(
			`20 of 20 video tasks did not report a final state within 1 h: ${ids.join(', ')}`,
		);
		expect(armed.description).toContain('"Get Task" or "Wait for Task"');
		// The first run's wait deadline is the limit.
		expect(Date.parse(String(result.run.waitTill)) - Date.now()).toBeGreaterThan(59 * 60_000);
	});

	test('the armed wait-limit error keeps its advice when n8n throws it from the stored execution', async () => {
		const entry = waitingEntry(await park(prompts(2)));
		const ids = taskIdsOf(entry) as string[];
		// n8n-core re-throws a stored resumeError as it is only when its name is NodeOperationError or
		// NodeApiError; any other name becomes a plain Error and loses the description.
		const stored = entry.metadata?.resumeError as unknown as Error;
		expect(stored.name).toBe('NodeOperationError');
		let thrown: unknown;
		try {
			(
				WorkflowExecute.prototype as unknown as { rethrowNodeError(error: unknown): never }
			).rethrowNodeError(stored);
		} catch (caught) {
			thrown = caught;
		}
		expect((thrown as { description?: string }).description).toContain(`Task ID ${ids.join(', ')}`);
	});

	test('an invalid item stops the node before any task is created', async () => {
		const input = prompts(5);
		input[3] = { json: { prompt: '' } };
		const result = await park(input);
		expect(result.error?.message).toMatch(/Prompt/);
		expect(result.error?.itemIndex).toBe(3);
		expect(posts(sim)).toHaveLength(0);
	});

	test(`more than ${MAX_BATCH_ITEMS} items: a clear error naming the limit and the alternatives, nothing sent`, async () => {
		const result = await park(prompts(MAX_BATCH_ITEMS + 1));
		expect(result.error?.message).toBe(
			`Wait for Callback takes at most ${MAX_BATCH_ITEMS} items per execution; this node received ${MAX_BATCH_ITEMS + 1}`,
		);
		expect(result.error?.description).toMatch(
			/Loop Over Items node with batch size 100.*Return Task at Once/,
		);
		expect(posts(sim)).toHaveLength(0);
	});

	test('the Wait Limit has a maximum of one day', async () => {
		const result = await park(prompts(1), { callbackWaitLimitMinutes: 1441 });
		expect(result.error?.message).toBe(
			'Wait Limit (Minutes) must be greater than 0 and at most 1440',
		);
		expect(posts(sim)).toHaveLength(0);
	});

	test('a creation failure without Continue On Fail stops the node and names the tasks already created', async () => {
		// Concurrency 1: the gateway accepts the first two items, then refuses the third.
		for (const id of ['vid_made_0', 'vid_made_1']) {
			sim.inject({
				path: '/v1/videos',
				method: 'POST',
				status: 200,
				body: { id, status: 'processing', created_at: 1763700000 },
			});
		}
		sim.inject({
			path: '/v1/videos',
			method: 'POST',
			status: 400,
			body: { error: { message: 'prompt: refused (simulated)' } },
		});
		const result = await park(prompts(4), { options: { concurrency: 1 } });
		expect(result.executionStatus).toBe('error');
		expect(result.error?.itemIndex).toBe(2);
		expect(result.error?.message).toBe(
			'The gateway rejected the request POST /v1/videos (HTTP 400)',
		);
		expect(result.error?.description).toContain('item 0: vid_made_0, item 1: vid_made_1');
		expect(result.error?.description).toContain('"Get Task" or "Wait for Task"');
		// The fourth item was never sent.
		expect(posts(sim, '/v1/videos')).toHaveLength(3);
	});

	test('a creation failure under Continue On Fail: an error item for that input, the rest parks', async () => {
		sim.inject({
			path: '/v1/videos',
			method: 'POST',
			status: 400,
			body: { error: { message: 'prompt: refused (simulated)' } },
		});
		const result = await park(
			prompts(3),
			{ options: { concurrency: 1 } },
			{ continueOnFail: true },
		);
		const entry = waitingEntry(result);
		const batch = batchOf(entry);
		expect('error' in batch.entries[0]).toBe(true);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items[0].json).toMatchObject({ error: expect.stringContaining('HTTP 400') });
		const ids = taskIdsOf(entry) as string[];
		ids.slice(1).forEach(finish);
		const answer = await deliver(entry, videoCallback(ids[1], 'succeed'));
		const [items] = answer.result.workflowData as INodeExecutionData[][];
		expect(items.map((i) => i.json.state ?? 'error')).toEqual(['error', 'succeeded', 'succeeded']);
		expect(items[0].json).toEqual(result.items[0].json);
	});
});

describe('the webhook decides with the gateway', () => {
	test('foreign ids are refused without naming the awaited tasks; progress keeps waiting', async () => {
		const entry = waitingEntry(await park(prompts(3)));
		const ids = taskIdsOf(entry) as string[];
		const foreign = await deliver(entry, videoCallback('vid_someone_else', 'succeed'));
		expect(foreign.status).toBe(409);
		expect(foreign.body).toEqual({ error: 'Task vid_someone_else is not part of this execution' });
		expect(JSON.stringify(foreign.body)).not.toContain(ids[0]);
		expect(foreign.result.workflowData).toBeUndefined();

		const progress = await deliver(entry, videoCallback(ids[1], 'processing'));
		expect(progress).toMatchObject({
			status: 200,
			body: { received: true, waiting: true, state: 'running' },
		});
		expect(progress.result.workflowData).toBeUndefined();

		const malformed = await deliver(entry, { id: 42, status: 'succeed', type: 'video' });
		expect(malformed.status).toBe(400);
		// Nothing above asked the gateway anything.
		expect(taskGets(sim)).toHaveLength(0);
	});

	test('forged final callbacks (succeed, FAILURE) for an awaited task still processing: 409, the execution keeps waiting', async () => {
		const entry = waitingEntry(await park(prompts(1)));
		const [id] = taskIdsOf(entry) as string[];
		for (const status of ['succeed', 'FAILURE', 'failed']) {
			const forged = await deliver(entry, videoCallback(id!, status, { message: 'forged' }));
			expect(forged.status).toBe(409);
			expect(forged.body.error).toBe(
				`The gateway does not report task ${id} as finished; send the callback again when it is`,
			);
			expect(forged.result.workflowData).toBeUndefined();
			expect((entry.metadata as IDataObject).resumeError).toMatchObject({
				message: expect.stringContaining('sent no final callback'),
			});
		}
		expect(taskGets(sim, id)).toHaveLength(3);
	});

	test('the gateway cannot be asked: 502, so the gateway retries later; the execution keeps waiting', async () => {
		const entry = waitingEntry(await park(prompts(1)));
		const [id] = taskIdsOf(entry) as string[];
		finish(id!);
		const down = await deliver(entry, videoCallback(id!, 'succeed'), 'wrong-key');
		expect(down.status).toBe(502);
		expect(down.result.workflowData).toBeUndefined();
	});

	test('each final callback is answered 200; only the last one, when the gateway reports all final, resumes, with items in input order', async () => {
		const entry = waitingEntry(await park(prompts(5)));
		const ids = taskIdsOf(entry) as string[];
		const order = [3, 0, 4, 1, 2];
		for (const [step, index] of order.entries()) {
			finish(ids[index]);
			// The callback's own URL is ignored: the gateway's record decides.
			const answer = await deliver(entry, videoCallback(ids[index], 'succeed'));
			expect(answer.status).toBe(200);
			expect(answer.body).toEqual({ received: true });
			if (step < order.length - 1) {
				expect(answer.result.workflowData).toBeUndefined();
				continue;
			}
			const [items] = answer.result.workflowData as INodeExecutionData[][];
			expect(items.map((i) => i.json.taskId)).toEqual(ids);
			expect(items.map((i) => i.pairedItem)).toEqual(ids.map((_, item) => ({ item })));
			for (const [i, item] of items.entries()) {
				const task = sim.tasks.get(ids[i])!;
				expect(item.json).toMatchObject({
					id: ids[i],
					taskId: ids[i],
					status: 'completed',
					state: 'succeeded',
					video: { url: task.video!.url, duration: 5, width: 1280, height: 720 },
				});
			}
			// Success clears the armed timeout error.
			expect((entry.metadata as IDataObject).resumeError).toBeUndefined();
		}
	});

	test('simultaneous final callbacks in one process: all answered 200, the output is built (and resumed) once', async () => {
		const entry = waitingEntry(await park(prompts(6)));
		const ids = taskIdsOf(entry) as string[];
		ids.forEach(finish);
		const getsBefore = taskGets(sim).length;
		const storm = await Promise.all(
			ids.flatMap((id) => [1, 2].map(() => deliver(entry, videoCallback(id, 'succeed')))),
		);
		// One confirmation per callback at most, and the batch checked once: not 12 checks of 6 tasks.
		expect(taskGets(sim).length - getsBefore).toBeLessThanOrEqual(12 + 6);
		expect(storm.map((a) => a.status)).toEqual(storm.map(() => 200));
		const resumed = storm.filter((a) => a.result.workflowData !== undefined);
		expect(resumed).toHaveLength(1);
		expect(
			(resumed[0].result.workflowData as INodeExecutionData[][])[0].map((i) => i.json.taskId),
		).toEqual(ids);
	});

	test('each task is read final once per process; another process, without that memory, asks the gateway for every task', async () => {
		const entry = waitingEntry(await park(prompts(5)));
		const ids = taskIdsOf(entry) as string[];
		for (const id of ids.slice(0, 4)) {
			finish(id);
			const answer = await deliver(entry, videoCallback(id, 'succeed'));
			expect(answer.status).toBe(200);
			expect(answer.result.workflowData).toBeUndefined();
		}
		// Each check read one other task, still rendering, and stopped; each task was read final once.
		expect(ids.map((id) => taskGets(sim, id).length)).toEqual([1, 2, 2, 2, 1]);
		finish(ids[4]);
		// A second webhook processor: the same code, loaded again, so none of this process's memory.
		let elsewhere: typeof callbackWaitWebhook | undefined;
		jest.isolateModules(() => {
			elsewhere = (
				require('../../nodes/shared/videoTask/callbackWait') as {
					callbackWaitWebhook: typeof callbackWaitWebhook;
				}
			).callbackWaitWebhook;
		});
		let before = taskGets(sim).length;
		const there = await deliver(entry, videoCallback(ids[4], 'succeed'), API_KEY, elsewhere);
		expect(taskGets(sim).length - before).toBe(5);
		const [thereItems] = there.result.workflowData as INodeExecutionData[][];
		expect(thereItems.map((i) => [i.json.taskId, i.json.state])).toEqual(
			ids.map((id) => [id, 'succeeded']),
		);
		// This process: only the task it had not seen final is read.
		before = taskGets(sim).length;
		const here = await deliver(entry, videoCallback(ids[4], 'succeed'));
		expect(taskGets(sim).length - before).toBe(1);
		const [hereItems] = here.result.workflowData as INodeExecutionData[][];
		expect(hereItems.map((i) => i.json)).toEqual(thereItems.map((i) => i.json));
	});

	test('the same execution parked again with a new batch (a loop) within a minute resumes again', async () => {
		const first = waitingEntry(await park(prompts(1)));
		const [firstId] = taskIdsOf(first) as string[];
		finish(firstId);
		expect(
			(await deliver(first, videoCallback(firstId, 'succeed'))).result.workflowData,
		).toBeDefined();
		// The next iteration: same n8n execution, a new task.
		const second = waitingEntry(await park(prompts(1)));
		executionIds.set(second, executionIds.get(first)!);
		const [secondId] = taskIdsOf(second) as string[];
		finish(secondId);
		const answer = await deliver(second, videoCallback(secondId, 'succeed'));
		expect(answer.status).toBe(200);
		expect((answer.result.workflowData as INodeExecutionData[][])[0][0].json.taskId).toBe(secondId);
	});

	test('a failed task without Continue On Fail: the resume carries one error naming each failed task and reason', async () => {
		const entry = waitingEntry(
			await park(prompts(4, (i) => (i === 1 || i === 3 ? ' [fail]' : ''))),
		);
		const ids = taskIdsOf(entry) as string[];
		ids.forEach(finish);
		const answer = await deliver(entry, videoCallback(ids[2], 'succeed'));
		expect(answer.status).toBe(200);
		expect(answer.result.workflowData).toEqual([[{ json: {} }]]);
		const error = (entry.metadata as IDataObject).resumeError as NodeOperationError;
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe(
			`2 of 4 video tasks failed: item 1: The gateway reports task ${ids[1]} as failed: Content policy violation (simulated); ` +
				`item 3: The gateway reports task ${ids[3]} as failed: Content policy violation (simulated)`,
		);
	});

	test('a failed task under Continue On Fail: an error item for its input, the others succeed', async () => {
		const entry = waitingEntry(
			await park(
				prompts(4, (i) => (i === 2 ? ' [fail]' : '')),
				{},
				{ continueOnFail: true },
			),
		);
		const ids = taskIdsOf(entry) as string[];
		expect(batchOf(entry).continueOnFail).toBe(true);
		// Armed for the wait limit as items, not as an error: one timed-out item per input.
		expect(entry.metadata?.resumeError).toBeUndefined();
		expect(entry.data.main[0]!.map((i) => [i.json.taskId, i.json.timedOut, i.pairedItem])).toEqual(
			ids.map((id, item) => [id, true, { item }]),
		);
		ids.forEach(finish);
		const answer = await deliver(entry, videoCallback(ids[0], 'succeed'));
		const [items] = answer.result.workflowData as INodeExecutionData[][];
		expect(items.map((i) => i.json.state)).toEqual([
			'succeeded',
			'succeeded',
			'failed',
			'succeeded',
		]);
		expect(items[2].json).toMatchObject({
			error: `The gateway reports task ${ids[2]} as failed: Content policy violation (simulated)`,
			taskId: ids[2],
			failReason: 'Content policy violation (simulated)',
		});
		expect(items.map((i) => i.pairedItem)).toEqual(ids.map((_, item) => ({ item })));
		expect(entry.metadata?.resumeError).toBeUndefined();
	});

	test('a task id longer than n8n keeps in custom data works (the batch is not in custom data)', async () => {
		const entry = waitingEntry(await park(prompts(1)));
		const [id] = taskIdsOf(entry) as string[];
		// 256 characters: more than a custom data value holds (255), the most a callback may carry.
		const longId = `${id}-`.padEnd(256, 'x');
		const task = sim.tasks.get(id!)!;
		sim.tasks.set(longId, { ...task, id: longId, completeAt: Date.now() - 1 });
		const batch = batchOf(entry);
		(batch.entries[0] as { taskId: string }).taskId = longId;
		const answer = await deliver(entry, videoCallback(longId, 'succeed'));
		expect(answer.status).toBe(200);
		const [items] = answer.result.workflowData as INodeExecutionData[][];
		expect(items[0].json.taskId).toBe(longId);
	});

	test('a stack entry without a batch (another node, another version) is refused', async () => {
		const entry = {
			node: { name: 'x' },
			data: { main: [[]] },
			source: null,
			metadata: {},
		} as unknown as IExecuteData;
		const answer = await deliver(entry, videoCallback('vid_x', 'succeed'));
		expect(answer).toMatchObject({
			status: 409,
			body: { error: 'This execution is not waiting for gateway callbacks' },
		});
	});
});

describe('the Storyboard node parks a batch the same way', () => {
	test('three storyboards, one park', async () => {
		const result = await runGateway(
			sim,
			new MediaGatewayStoryboard(),
			{
				model: 'vidmodel',
				size: '1280x720',
				scenesInput: 'list',
				scenes: { scene: [{ prompt: '={{ $json.prompt }}', duration: 3 }] },
				completion: 'callback',
				options: {},
			},
			{ input: prompts(3), mode: 'webhook' },
		);
		const entry = waitingEntry(result);
		expect(taskIdsOf(entry)).toHaveLength(3);
		expect(
			posts(sim, '/v1/videos').map(
				(r) => (r.body as { storyboard: IDataObject[] }).storyboard[0].prompt,
			),
		).toEqual(['Clip 0', 'Clip 1', 'Clip 2']);
	});
});

describe('n8n 1.x', () => {
	test('refused before anything is created, detected by the execution context’s features', async () => {
		let built = 0;
		const node = { name: 'Render', type: 'n8n-nodes-media-gateway.mediaGatewayVideo' } as INode;
		// What n8n 1.123's execute context offers: no customData accessor.
		const ctx = {
			getNode: () => node,
			getInputData: () => prompts(2),
			getExecuteData: () => ({}),
			setMetadata: () => undefined,
			putExecutionToWait: async () => undefined,
			continueOnFail: () => false,
			getNodeParameter: () => undefined,
		} as unknown as IExecuteFunctions;
		await expect(
			startCallbackWait(ctx, async () => {
				built++;
				return async () => ({});
			}),
		).rejects.toThrow('Completion "Wait for Callback" needs n8n 2.x');
		expect(built).toBe(0);
		// The same context with n8n 2.x's accessor passes the check (and fails later for other reasons).
		Object.defineProperty(ctx, 'customData', { get: () => ({}) });
		await expect(
			startCallbackWait(ctx, async () => {
				built++;
				return async () => ({});
			}),
		).rejects.not.toThrow('needs n8n 2.x');
	});
});

test('the batch key is the documented one', () => {
	expect(BATCH_METADATA_KEY).toBe('mediaGatewayBatch');
});
