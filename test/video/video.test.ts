/**
 * Media Gateway Video through n8n's real execution engine, over real HTTP against the in-repo
 * gateway simulator: request bodies, completion modes, polling, timeouts, cancellation,
 * concurrency, downloads, validation before any request, and HTTP error handling.
 */
import type { INodeParameters } from 'n8n-workflow';

import { MediaGatewayVideo } from '../../nodes/MediaGatewayVideo/MediaGatewayVideo.node';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../nodes/shared/transport/retry';
import {
	API_KEY,
	PNG_BASE64,
	errorText,
	everythingVisible,
	maxInFlight,
	mp4Bytes,
	posts,
	runGateway,
	startSim,
	taskGets,
	type RunOptions,
	type Simulator,
	waitUntil,
} from './helpers';

/** Every standard task of the main simulator finishes this long after creation (pro: twice). */
const COMPLETE_MS = 300;

let sim: Simulator;
/** The retry policy `video()` constructs the node with; a test may change it before it runs. */
let retryPolicy: { -readonly [K in keyof RetryPolicy]: RetryPolicy[K] } = {
	...DEFAULT_RETRY_POLICY,
};

beforeAll(async () => {
	sim = await startSim({ videoCompleteAfterMs: COMPLETE_MS });
});

afterAll(async () => {
	await sim.close();
});

beforeEach(() => {
	sim.reset();
	sim.setLatency(0);
});

afterEach(() => {
	retryPolicy = { ...DEFAULT_RETRY_POLICY };
});

const video = (parameters: INodeParameters, options?: RunOptions) =>
	runGateway(sim, new MediaGatewayVideo({ retryPolicy }), parameters, options);

const POLL_FAST = { pollIntervalSeconds: 0.1, waitTimeoutMinutes: 1 };

function createParams(overrides: INodeParameters = {}): INodeParameters {
	return {
		operation: 'create',
		model: 'vidmodel',
		prompt: 'A paper boat drifting down a rainy street',
		size: '1280x720',
		duration: 5,
		referenceImageSource: 'none',
		callbackUrl: '',
		completion: 'returnTask',
		...POLL_FAST,
		...overrides,
	};
}

function unifiedParams(overrides: INodeParameters = {}): INodeParameters {
	return {
		operation: 'createUnified',
		model: 'vidmodel',
		prompt: 'A lighthouse at dusk, waves rolling in',
		aspectRatio: '16:9',
		callbackUrl: '',
		completion: 'returnTask',
		...POLL_FAST,
		...overrides,
	};
}

/** Creates a task straight on the simulator, as another workflow would have. */
async function createTaskDirectly(prompt: string): Promise<string> {
	const response = await fetch(`${sim.url}/v1/videos`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ model: 'vidmodel', prompt }),
	});
	expect(response.status).toBe(200);
	const body = (await response.json()) as { id: string };
	return body.id;
}

describe('Create (unified, POST /v1/video/create)', () => {
	test('sends model, prompt and aspect_ratio; Return Task at Once outputs the task at once', async () => {
		const result = await video(unifiedParams({ model: 'vidmodel-pro', aspectRatio: '9:16' }));

		expect(result.error).toBeUndefined();
		const sent = posts(sim);
		expect(sent).toHaveLength(1);
		expect(sent[0].path).toBe('/v1/video/create');
		expect(sent[0].headers['content-type']).toMatch(/^application\/json/);
		expect(sent[0].body).toEqual({
			model: 'vidmodel-pro',
			prompt: 'A lighthouse at dusk, waves rolling in',
			aspect_ratio: '9:16',
		});

		expect(result.items).toHaveLength(1);
		const json = result.items[0].json;
		const [task] = [...sim.tasks.values()];
		expect(json).toMatchObject({
			id: task.id,
			status: 'processing',
			taskId: task.id,
			state: 'running',
		});
		expect(typeof json.created_at).toBe('number');
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
		// Returned at once: nobody asked for the task's status.
		expect(taskGets(sim)).toHaveLength(0);
	});

	test('Wait Until Done: polls until completed and outputs the video', async () => {
		const result = await video(unifiedParams({ completion: 'poll', aspectRatio: '9:16' }));

		expect(result.error).toBeUndefined();
		const [task] = [...sim.tasks.values()];
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({
			id: task.id,
			taskId: task.id,
			state: 'succeeded',
			status: 'completed',
			video: {
				url: `${sim.url}/files/videos/${task.id}.mp4`,
				duration: 5,
				width: 720,
				height: 1280,
			},
		});
		expect(result.items[0].binary).toBeUndefined();
		expect(everythingVisible(result)).not.toContain(API_KEY);
	});
});

describe('Create (POST /v1/videos)', () => {
	test('sends model, prompt, size and duration; no reference image means no image_url', async () => {
		const result = await video(createParams({ size: '640x360', duration: 4 }));

		expect(result.error).toBeUndefined();
		const sent = posts(sim);
		expect(sent.map((r) => r.path)).toEqual(['/v1/videos']);
		expect(sent[0].body).toEqual({
			model: 'vidmodel',
			prompt: 'A paper boat drifting down a rainy street',
			size: '640x360',
			duration: 4,
		});
	});

	test('reference image as URL is sent as image_url', async () => {
		const url = 'https://cdn.example.com/frames/start.png';
		const result = await video(
			createParams({ referenceImageSource: 'url', referenceImageUrl: url }),
		);

		expect(result.error).toBeUndefined();
		expect(posts(sim)[0].body.image_url).toBe(url);
	});

	test('reference image from a binary field of the input item is sent as a data URI', async () => {
		const result = await video(
			createParams({ referenceImageSource: 'binary', referenceImageBinaryField: 'still' }),
			{
				input: [
					{
						json: { name: 'frame' },
						binary: { still: { data: PNG_BASE64, mimeType: 'image/png', fileName: 'still.png' } },
					},
				],
			},
		);

		expect(result.error).toBeUndefined();
		expect(posts(sim)[0].body.image_url).toBe(`data:image/png;base64,${PNG_BASE64}`);
	});

	test('Callback URL is sent as notifyHook', async () => {
		const hook = 'http://127.0.0.1:9/webhook/media-gateway';
		const result = await video(createParams({ callbackUrl: hook }));

		expect(result.error).toBeUndefined();
		expect(posts(sim)[0].body.notifyHook).toBe(hook);
		const [task] = [...sim.tasks.values()];
		expect(task.notifyHook).toBe(hook);
	});

	test('an empty Callback URL sends no notifyHook field at all', async () => {
		const result = await video(createParams({ callbackUrl: '   ' }));

		expect(result.error).toBeUndefined();
		expect(posts(sim)[0].body).not.toHaveProperty('notifyHook');
	});

	test('Wait Until Done: output has taskId, state, raw status and the video object', async () => {
		const result = await video(createParams({ completion: 'poll', size: '640x360', duration: 3 }));

		expect(result.error).toBeUndefined();
		const [task] = [...sim.tasks.values()];
		expect(result.items[0].json).toMatchObject({
			taskId: task.id,
			state: 'succeeded',
			status: 'completed',
			video: {
				url: `${sim.url}/files/videos/${task.id}.mp4`,
				duration: 3,
				width: 640,
				height: 360,
			},
		});
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	test('option download puts the video into the named binary field with the right bytes', async () => {
		const result = await video(
			createParams({ completion: 'poll', options: { download: true, binaryPropertyName: 'clip' } }),
		);

		expect(result.error).toBeUndefined();
		const item = result.items[0];
		expect(Object.keys(item.binary ?? {})).toEqual(['clip']);
		expect(item.binary!.clip.mimeType).toBe('video/mp4');
		const bytes = await result.binaryBuffer(item, 'clip');
		expect(bytes.equals(mp4Bytes())).toBe(true);
		// The file was fetched from the URL the task reported.
		const [task] = [...sim.tasks.values()];
		expect(
			sim.requests.some((r) => r.method === 'GET' && r.path === `/files/videos/${task.id}.mp4`),
		).toBe(true);
	});
});

describe('Wait Until Done: polling', () => {
	test('a task that takes several polls is polled at the poll interval until it completes', async () => {
		// A pro task takes twice as long as a standard one.
		const result = await video(
			createParams({ completion: 'poll', model: 'vidmodel-pro', pollIntervalSeconds: 0.1 }),
		);

		expect(result.error).toBeUndefined();
		expect(result.items[0].json.state).toBe('succeeded');
		const gets = taskGets(sim);
		const [task] = [...sim.tasks.values()];
		// One poll right after creation, then one every 100 ms until the 600 ms task is done: about
		// 7; fewer when a busy machine stretches each round trip, never more.
		const expected = (2 * COMPLETE_MS) / 100 + 1;
		expect(gets.length).toBeGreaterThanOrEqual(3);
		expect(gets.length).toBeLessThanOrEqual(expected + 1);
		// It stopped at the first poll that saw the task done.
		expect(gets[gets.length - 2].at).toBeLessThan(task.completeAt);
		expect(gets[gets.length - 1].at).toBeGreaterThanOrEqual(task.completeAt);
		const gaps = gets.slice(1).map((r, i) => r.at - gets[i].at);
		expect(Math.min(...gaps)).toBeGreaterThanOrEqual(90);
		// Not the 10 s default either: the interval set on the node is the one used. (Bounded by half the
		// default, what it tells apart, not by a figure near 100 ms that a busy machine can stretch.)
		expect(Math.max(...gaps)).toBeLessThan(10_000 / 2);
	});

	test('timeout: the error names the task id and how to fetch it later', async () => {
		// [slow] makes the task take 10x as long as the 0.6 s wait timeout allows.
		const result = await video(
			createParams({
				completion: 'poll',
				prompt: 'A glacier calving [slow]',
				waitTimeoutMinutes: 0.01,
			}),
		);

		const [task] = [...sim.tasks.values()];
		expect(result.error).toBeDefined();
		expect(result.error!.message).toContain(task.id);
		expect(result.error!.message).toMatch(/did not finish/i);
		expect(result.error!.description).toMatch(/Get Task|Wait for Task/);
		expect(result.error!.description).toContain(task.id);
		expect(result.error!.itemIndex).toBe(0);
		// It gave up at the timeout (600 ms), not at the end of the task (3 s): not before the timeout (timers
		// never fire early), and without ever having seen the task finished: every poll reached the simulator
		// before the task's end, and the simulator still reports it processing. (Told by the order of events,
		// not by a wall-clock bound a busy machine can break.)
		expect(result.elapsedMs).toBeGreaterThanOrEqual(550);
		const polls = taskGets(sim, task.id);
		expect(polls.length).toBeGreaterThanOrEqual(1);
		expect(polls.filter((r) => r.at >= task.completeAt)).toEqual([]);
		expect(task.status).toBe('processing');
	});

	test('timeout under Continue On Fail: an item with timedOut and the taskId', async () => {
		const result = await video(
			createParams({
				completion: 'poll',
				prompt: 'A glacier calving [slow]',
				waitTimeoutMinutes: 0.01,
			}),
			{ continueOnFail: true },
		);

		const [task] = [...sim.tasks.values()];
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({ timedOut: true, taskId: task.id });
		expect(String(result.items[0].json.error)).toContain(task.id);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	test('cancellation stops waiting promptly', async () => {
		const abort = new AbortController();
		let abortedAt = 0;
		let pollsAtAbort = 0;
		let onItsWay = 0;
		// Cancel once the task has been polled, i.e. while the node is waiting (not after a guessed delay).
		const watcher = setInterval(() => {
			if (taskGets(sim).length > 0) {
				clearInterval(watcher);
				abortedAt = Date.now();
				pollsAtAbort = taskGets(sim).length;
				// A poll that had set off but not yet reached the simulator at this moment is possible only if the
				// node had already slept a poll interval (0.2 s) since the last poll the simulator logged: timers
				// never fire early. Only then may one more poll arrive after the abort.
				onItsWay = abortedAt - taskGets(sim).at(-1)!.at >= 150 ? 1 : 0;
				abort.abort();
			}
		}, 10);
		const result = await video(
			createParams({
				completion: 'poll',
				prompt: 'A slow sunrise [slow]',
				pollIntervalSeconds: 0.2,
			}),
			{ abortSignal: abort.signal },
		);
		const returnedAt = Date.now();

		expect(result.cancelled).toBe(true);
		expect(result.stoppedAfterCancel).toBe(true);
		expect(result.executionStatus).toBe('canceled');
		// Promptly: it stopped within the harness's grace after the cancel (stoppedAfterCancel), and it came back
		// before the task it was waiting for ended (the simulator still reports it processing); the order of
		// events, not a wall-clock bound. Below: nothing polled it after the cancel.
		expect(abortedAt).toBeGreaterThan(0);
		const [cancelledTask] = [...sim.tasks.values()];
		expect(returnedAt).toBeLessThan(cancelledTask.completeAt);
		expect(cancelledTask.status).toBe('processing');
		// Nothing polls the task after the cancel (only a poll already on its way may still arrive), and nothing
		// later either. Proof without watching the clock for a while: a poll still scheduled by the cancelled
		// run would be due one poll interval (0.2 s) after its timer was set, i.e. before the run returned. A
		// second node, polling another task at the same interval through the same code, sets its timers after
		// that, so Node.js fires them later; by the time its third poll has reached the simulator, every poll
		// the cancelled run could still have scheduled would have reached it too.
		const [task] = [...sim.tasks.values()];
		// Its task stays `processing` however slow the machine is, so it polls until this test stops it.
		const clockTaskId = 'vid_clock';
		sim.inject({
			method: 'GET',
			path: `/v1/videos/${clockTaskId}`,
			status: 200,
			body: { id: clockTaskId, status: 'processing' },
			times: 1000,
		});
		const clock = new AbortController();
		const clockRun = video(
			{ operation: 'wait', taskId: clockTaskId, pollIntervalSeconds: 0.2, waitTimeoutMinutes: 1 },
			{ abortSignal: clock.signal },
		);
		await waitUntil(
			() => taskGets(sim, clockTaskId).length >= 3,
			`three polls of the second task ${clockTaskId}`,
		);
		clock.abort();
		expect((await clockRun).cancelled).toBe(true);
		expect(taskGets(sim, task.id).length).toBeLessThanOrEqual(pollsAtAbort + onItsWay);
	});

	test('cancellation with Concurrency 1 and several waiting items stops them all promptly', async () => {
		const abort = new AbortController();
		let abortedAt = 0;
		// Cancel once all four tasks exist and have been polled, i.e. while all of them are waiting.
		const watcher = setInterval(() => {
			if (new Set(taskGets(sim).map((r) => r.path)).size === 4) {
				clearInterval(watcher);
				abortedAt = Date.now();
				abort.abort();
			}
		}, 10);
		const result = await video(
			createParams({
				completion: 'poll',
				prompt: '={{ $json.prompt }}',
				pollIntervalSeconds: 0.2,
				options: { concurrency: 1 },
			}),
			{
				abortSignal: abort.signal,
				input: Array.from({ length: 4 }, (_, i) => ({
					json: { prompt: `slow scene ${i} [slow]` },
				})),
			},
		);

		clearInterval(watcher);

		expect(result.cancelled).toBe(true);
		expect(result.stoppedAfterCancel).toBe(true);
		// Promptly: within the harness's grace after the cancel, and before any of the four tasks ended (the
		// simulator still reports them all processing), instead of a wall-clock bound.
		const returnedAt = Date.now();
		expect(abortedAt).toBeGreaterThan(0);
		const tasks = [...sim.tasks.values()];
		expect(tasks).toHaveLength(4);
		expect(returnedAt).toBeLessThan(Math.min(...tasks.map((t) => t.completeAt)));
		expect(tasks.map((t) => t.status)).toEqual([
			'processing',
			'processing',
			'processing',
			'processing',
		]);
		expect(posts(sim)).toHaveLength(4);
	});

	test("a failed task fails the node with the gateway's reason", async () => {
		const result = await video(
			createParams({ completion: 'poll', prompt: 'A forbidden scene [fail]' }),
		);

		const [task] = [...sim.tasks.values()];
		expect(result.error).toBeDefined();
		expect(result.error!.message).toContain('Content policy violation (simulated)');
		expect(result.error!.message).toContain(task.id);
		expect(result.error!.itemIndex).toBe(0);
	});

	test('a failed task under Continue On Fail becomes an error item', async () => {
		const result = await video(
			createParams({ completion: 'poll', prompt: '={{ $json.prompt }}' }),
			{
				continueOnFail: true,
				input: [
					{ json: { prompt: 'A fine scene' } },
					{ json: { prompt: 'A forbidden scene [fail]' } },
				],
			},
		);

		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(2);
		expect(result.items[0].json.state).toBe('succeeded');
		expect(result.items[1].json).toMatchObject({
			state: 'failed',
			failReason: 'Content policy violation (simulated)',
		});
		expect(String(result.items[1].json.error)).toContain('Content policy violation (simulated)');
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	test('output order equals input order although tasks finish in another order; pairedItem on every item', async () => {
		// The first item is pro and slow (6 s), and the test ends its task only once the simulator has finished
		// the other two: it finishes last however late a busy machine fires the simulator's timers.
		const input = [
			{ json: { prompt: 'first scene [slow]', model: 'vidmodel-pro' } },
			{ json: { prompt: 'second scene', model: 'vidmodel' } },
			{ json: { prompt: 'third scene', model: 'vidmodel' } },
		];
		const othersDone = () => {
			const all = [...sim.tasks.values()];
			return (
				all.length === 3 &&
				all.every((t) => t.prompt === input[0].json.prompt || t.status === 'completed')
			);
		};
		const releaseFirst = waitUntil(othersDone, 'the second and third tasks to complete').then(
			() => {
				const first = [...sim.tasks.values()].find((t) => t.prompt === input[0].json.prompt)!;
				first.completeAt = Date.now(); // its moment has come: the next poll finds it completed
			},
		);
		const result = await video(
			createParams({
				completion: 'poll',
				prompt: '={{ $json.prompt }}',
				model: '={{ $json.model }}',
			}),
			{ input },
		);
		await releaseFirst;

		expect(result.error).toBeUndefined();
		const tasks = [...sim.tasks.values()];
		const byPrompt = new Map(tasks.map((t) => [t.prompt, t]));
		expect(result.items.map((i) => i.json.taskId)).toEqual(
			input.map((i) => byPrompt.get(i.json.prompt)!.id),
		);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		// Proof the order was restored, not merely kept: the first task completed last.
		const first = byPrompt.get(input[0].json.prompt)!;
		expect(tasks.every((t) => t === first || t.updatedAt <= first.updatedAt)).toBe(true);
	});
});

describe('Get Task and Wait for Task', () => {
	test('Get Task reads a processing task, later a completed one', async () => {
		const taskId = await createTaskDirectly('A kite over the dunes');

		const early = await video({ operation: 'get', taskId });
		expect(early.error).toBeUndefined();
		expect(early.items[0].json).toMatchObject({
			id: taskId,
			taskId,
			status: 'processing',
			state: 'running',
		});
		expect(taskGets(sim, taskId)).toHaveLength(1);

		// Once the simulator has finished the task (its own clock), not after a guessed delay.
		await waitUntil(
			() => sim.tasks.get(taskId)?.status === 'completed',
			`the simulator to complete task ${taskId}`,
		);
		const late = await video(
			{ operation: 'get', taskId: '={{ $json.id }}' },
			{ input: [{ json: { id: taskId } }] },
		);
		expect(late.error).toBeUndefined();
		expect(late.items[0].json).toMatchObject({
			taskId,
			status: 'completed',
			state: 'succeeded',
			video: {
				url: `${sim.url}/files/videos/${taskId}.mp4`,
				duration: 5,
				width: 1280,
				height: 720,
			},
		});
		expect(late.items[0].pairedItem).toEqual({ item: 0 });
	});

	test('Get Task with an unknown id: 404 whose message says to check the task id', async () => {
		const result = await video({ operation: 'get', taskId: 'vid_does_not_exist' });

		expect(result.error).toBeDefined();
		expect(result.error!.httpCode).toBe('404');
		expect(errorText(result)).toMatch(/check the task id/i);
		expect(taskGets(sim, 'vid_does_not_exist')).toHaveLength(1);
	});

	test('Wait for Task polls an existing id until done and can download the video', async () => {
		const taskId = await createTaskDirectly('A hummingbird in slow motion');

		const result = await video({
			operation: 'wait',
			taskId,
			...POLL_FAST,
			options: { download: true, binaryPropertyName: 'clip' },
		});

		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({
			taskId,
			state: 'succeeded',
			status: 'completed',
			video: { url: `${sim.url}/files/videos/${taskId}.mp4`, width: 1280, height: 720 },
		});
		expect(taskGets(sim, taskId).length).toBeGreaterThanOrEqual(2);
		expect((await result.binaryBuffer(result.items[0], 'clip')).equals(mp4Bytes())).toBe(true);
		// Only the creation done above: waiting creates nothing.
		expect(posts(sim)).toHaveLength(1);
	});

	test('Wait for Task with a timeout names the task id', async () => {
		const taskId = await createTaskDirectly('A glacier calving [slow]');

		const result = await video({
			operation: 'wait',
			taskId,
			pollIntervalSeconds: 0.1,
			waitTimeoutMinutes: 0.01,
		});

		expect(result.error).toBeDefined();
		expect(result.error!.message).toContain(taskId);
		expect(result.error!.description).toContain(taskId);
	});
});

describe('validation before any request', () => {
	const invalidCases: Array<[string, INodeParameters, RegExp]> = [
		// A literally empty required field is caught by n8n itself (next test); an expression that
		// resolves to nothing is the node's to catch.
		[
			'empty prompt from an expression (create)',
			createParams({ prompt: '={{ $json.missing }}' }),
			/Prompt/,
		],
		['empty prompt (unified)', unifiedParams({ prompt: '   ' }), /Prompt/],
		['aspect ratio not <w>:<h>', unifiedParams({ aspectRatio: '={{ "16/9" }}' }), /Aspect Ratio/],
		['size not <w>x<h>', createParams({ size: '1280*720' }), /Size/],
		['non-integer duration', createParams({ duration: 2.5 }), /Duration/],
		['zero duration', createParams({ duration: 0 }), /Duration/],
		['negative duration', createParams({ duration: -3 }), /Duration/],
		[
			'Callback URL that is not http(s)',
			createParams({ callbackUrl: 'ftp://example.com/hook' }),
			/Callback URL/,
		],
	];

	test.each(invalidCases)(
		'%s: NodeOperationError naming the field and item, no POST',
		async (_name, parameters, field) => {
			const result = await video(parameters);

			expect(result.error).toBeDefined();
			expect(result.error!.name).toBe('NodeOperationError');
			expect(result.error!.message).toMatch(field);
			expect(result.error!.itemIndex).toBe(0);
			expect(errorText(result)).toMatch(/item 0/);
			expect(posts(sim)).toHaveLength(0);
		},
	);

	// Poll settings are checked before the task is created: a bad value must not bill a task.
	test.each([
		['Poll Interval below 0.1 s', { pollIntervalSeconds: 0.05 }, /Poll Interval/],
		['Wait Timeout of 0', { waitTimeoutMinutes: '={{ 0 }}' }, /Wait Timeout/],
	] as Array<[string, INodeParameters, RegExp]>)(
		'%s with Wait Until Done: refused before the task is created',
		async (_name, overrides, field) => {
			const result = await video(createParams({ completion: 'poll', ...overrides }));

			expect(result.error).toBeDefined();
			expect(result.error!.name).toBe('NodeOperationError');
			expect(result.error!.message).toMatch(field);
			expect(result.error!.itemIndex).toBe(0);
			expect(posts(sim)).toHaveLength(0);
		},
	);

	test('a literally empty required Prompt is refused by n8n before the node runs', async () => {
		await expect(video(createParams({ prompt: '' }))).rejects.toThrow(
			/Parameter "Prompt" is required/,
		);
		expect(sim.requests).toHaveLength(0);
	});

	test('the error names the failing item; other items are still sent', async () => {
		const result = await video(
			createParams({ size: '={{ $json.size }}', prompt: '={{ $json.prompt }}' }),
			{
				input: [
					{ json: { prompt: 'good one', size: '640x360' } },
					{ json: { prompt: 'bad one', size: 'wide' } },
				],
			},
		);

		expect(result.error).toBeDefined();
		expect(result.error!.name).toBe('NodeOperationError');
		expect(result.error!.message).toMatch(/Size/);
		expect(result.error!.itemIndex).toBe(1);
		expect(errorText(result)).toMatch(/item 1/);
		expect(posts(sim).map((r) => r.body.prompt)).toEqual(['good one']);
	});

	test('under Continue On Fail the invalid item becomes an error item naming the field', async () => {
		const result = await video(
			createParams({ duration: '={{ $json.duration }}', prompt: '={{ $json.prompt }}' }),
			{
				continueOnFail: true,
				input: [
					{ json: { prompt: 'good one', duration: 4 } },
					{ json: { prompt: 'bad one', duration: 1.5 } },
					{ json: { prompt: 'good two', duration: 6 } },
				],
			},
		);

		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
		expect(String(result.items[1].json.error)).toMatch(/Duration/);
		expect(result.items[0].json.taskId).toBeDefined();
		expect(result.items[2].json.taskId).toBeDefined();
		expect(
			posts(sim)
				.map((r) => r.body.prompt)
				.sort(),
		).toEqual(['good one', 'good two']);
	});
});

describe('more completion behaviour', () => {
	test('Gateway Default aspect ratio sends no aspect_ratio field', async () => {
		const result = await video(unifiedParams({ aspectRatio: '' }));

		expect(result.error).toBeUndefined();
		expect(posts(sim)[0].body).toEqual({
			model: 'vidmodel',
			prompt: 'A lighthouse at dusk, waves rolling in',
		});
	});

	test('one failing item stops the others from waiting: the node fails at once', async () => {
		const result = await video(
			createParams({
				completion: 'poll',
				prompt: '={{ $json.prompt }}',
				size: '={{ $json.size }}',
			}),
			{
				input: [
					{ json: { prompt: 'a long one [slow]', size: '640x360' } },
					{ json: { prompt: 'bad size', size: '640' } },
				],
			},
		);

		expect(result.error).toBeDefined();
		expect(result.error!.itemIndex).toBe(1);
		expect(result.error!.message).toMatch(/Size/);
		// The [slow] task of item 0 needs 3 s; nobody waited for it: the node failed while the simulator still
		// reports that task processing, and no poll saw it finished (order of events, not a wall-clock bound).
		const slowTasks = [...sim.tasks.values()];
		expect(slowTasks).toHaveLength(1);
		expect(slowTasks[0].status).toBe('processing');
		expect(taskGets(sim, slowTasks[0].id).filter((r) => r.at >= slowTasks[0].completeAt)).toEqual(
			[],
		);
	});

	test('a 503 while polling is retried and the wait goes on', async () => {
		retryPolicy.baseDelayMs = 10;
		retryPolicy.maxDelayMs = 40;
		sim.inject({ path: /^\/v1\/videos\/[^/]+$/, method: 'GET', status: 503, times: 2 });
		const result = await video(createParams({ completion: 'poll' }));

		expect(result.error).toBeUndefined();
		expect(result.items[0].json.state).toBe('succeeded');
	});

	test('a 500 on a status request is retried too (a GET changes nothing), and a lasting one names the task', async () => {
		retryPolicy.baseDelayMs = 10;
		retryPolicy.maxDelayMs = 40;
		sim.inject({ path: /^\/v1\/videos\/[^/]+$/, method: 'GET', status: 500, times: 1 });
		const recovered = await video(createParams({ completion: 'poll' }));
		expect(recovered.error).toBeUndefined();
		expect(recovered.items[0].json.state).toBe('succeeded');

		sim.inject({ path: /^\/v1\/videos\/[^/]+$/, method: 'GET', status: 500, times: 50 });
		const failed = await video(createParams({ completion: 'poll' }));
		const taskId = [...sim.tasks.keys()].at(-1);
		expect(failed.error?.message).toMatch(/HTTP 500/);
		expect(failed.error?.description).toContain(`Task ID ${taskId}`);
	});
});

describe('concurrency: tasks are waited for in parallel', () => {
	let slowSim: Simulator;
	const LATENCY_MS = 40;

	beforeAll(async () => {
		slowSim = await startSim({ videoCompleteAfterMs: 1000, latencyMs: LATENCY_MS });
	});

	afterAll(async () => {
		await slowSim.close();
	});

	const sixItems = Array.from({ length: 6 }, (_, i) => ({ json: { prompt: `scene ${i}` } }));

	test('6 items of ~1 s each are waited for side by side with Concurrency 1, one request in flight at a time', async () => {
		const result = await runGateway(
			slowSim,
			new MediaGatewayVideo(),
			createParams({
				completion: 'poll',
				prompt: '={{ $json.prompt }}',
				pollIntervalSeconds: 0.2,
				options: { concurrency: 1 },
			}),
			{ input: sixItems },
		);

		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(6);
		expect(result.items.every((i) => i.json.state === 'succeeded')).toBe(true);
		expect(result.items.map((i) => i.pairedItem)).toEqual(sixItems.map((_, i) => ({ item: i })));
		// Not timed: the last assertion below (most tasks created before the first one finished) shows the
		// waiting was side by side, whatever the machine's speed; durations are for a benchmark.

		const creations = slowSim.requests.filter((r) => r.method === 'POST');
		expect(creations).toHaveLength(6);
		expect(maxInFlight(creations, LATENCY_MS * 0.75)).toBe(1);
		// Concurrency bounds every gateway request, polls included.
		const apiRequests = slowSim.requests.filter((r) => !r.path.startsWith('/files/'));
		expect(maxInFlight(apiRequests, LATENCY_MS * 0.75)).toBe(1);
		// The tasks really rendered side by side: most had been created before the first one finished.
		const tasks = [...slowSim.tasks.values()];
		const firstDone = Math.min(...tasks.map((t) => t.completeAt));
		expect(tasks.filter((t) => t.createdAt < firstDone).length).toBeGreaterThanOrEqual(3);
	});

	test('creation requests in flight reach but never exceed the set concurrency', async () => {
		slowSim.reset();
		slowSim.setLatency(150);
		try {
			const result = await runGateway(
				slowSim,
				new MediaGatewayVideo(),
				createParams({
					prompt: '={{ $json.prompt }}',
					completion: 'returnTask',
					options: { concurrency: 3 },
				}),
				{ input: sixItems },
			);

			expect(result.error).toBeUndefined();
			expect(result.items).toHaveLength(6);
			const creations = slowSim.requests.filter((r) => r.method === 'POST');
			expect(creations).toHaveLength(6);
			// Measured, so a wrong bound would show: 6 items through 3 slots overlap 3 at a time.
			expect(maxInFlight(creations, 150 * 0.75)).toBe(3);
		} finally {
			slowSim.setLatency(LATENCY_MS);
		}
	});
});

describe('HTTP errors', () => {
	test('401: the key appears neither in the error nor in the logs', async () => {
		const result = await video(createParams(), { apiKey: 'mgw-wrong-key-0a1b2c3d4e5f' });

		expect(result.error).toBeDefined();
		expect(result.error!.httpCode).toBe('401');
		expect(result.error!.message).toMatch(/API key/i);
		const visible = everythingVisible(result);
		expect(visible).not.toContain('mgw-wrong-key-0a1b2c3d4e5f');
		expect(visible).not.toContain(API_KEY);
	});

	test('401 whose body echoes the key: the key is redacted', async () => {
		sim.inject({
			path: '/v1/videos',
			method: 'POST',
			status: 401,
			body: { error: { message: `Key ${API_KEY} is not valid for this project` } },
		});
		const result = await video(createParams());

		expect(result.error).toBeDefined();
		expect(result.error!.httpCode).toBe('401');
		expect(everythingVisible(result)).not.toContain(API_KEY);
	});

	test('429 with Retry-After: waits as asked, then succeeds', async () => {
		sim.inject({ path: '/v1/videos', method: 'POST', status: 429, retryAfter: '1', times: 1 });
		const result = await video(createParams());

		expect(result.error).toBeUndefined();
		expect(result.items[0].json.state).toBe('running');
		const sent = posts(sim);
		expect(sent).toHaveLength(2);
		expect(sent[1].at - sent[0].at).toBeGreaterThanOrEqual(900);
	});

	test('429 without Retry-After: backs off and retries, then gives up with advice', async () => {
		retryPolicy.baseDelayMs = 10;
		retryPolicy.maxDelayMs = 40;
		sim.inject({ path: '/v1/videos', method: 'POST', status: 429, times: 10 });
		const result = await video(createParams());

		expect(result.error).toBeDefined();
		expect(result.error!.httpCode).toBe('429');
		expect(posts(sim)).toHaveLength(retryPolicy.maxAttempts);
		expect(errorText(result)).toMatch(/Concurrency/);
	});

	test('429 asking for a longer wait than allowed fails fast', async () => {
		retryPolicy.maxRetryAfterMs = 500;
		sim.inject({ path: '/v1/videos', method: 'POST', status: 429, retryAfter: '120', times: 5 });
		const result = await video(createParams());

		expect(result.error).toBeDefined();
		expect(result.error!.httpCode).toBe('429');
		expect(posts(sim)).toHaveLength(1);
		// It did not sit out the 120 s asked for: a bound scaled to what it tells apart (a tenth of the ask),
		// not a figure near the run's own cost that a busy machine can break.
		expect(result.elapsedMs).toBeLessThan(120_000 / 10);
	});

	test("500 on a POST is not retried and is reported with the gateway's message", async () => {
		retryPolicy.baseDelayMs = 10;
		sim.inject({
			path: '/v1/videos',
			method: 'POST',
			status: 500,
			body: { error: { message: 'Render farm unavailable' } },
			times: 3,
		});
		const result = await video(createParams());

		expect(result.error).toBeDefined();
		expect(result.error!.httpCode).toBe('500');
		expect(errorText(result)).toContain('Render farm unavailable');
		expect(posts(sim)).toHaveLength(1);
	});
});
