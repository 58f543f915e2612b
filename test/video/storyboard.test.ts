/**
 * Media Gateway Storyboard through n8n's real execution engine against the gateway simulator:
 * scenes from the UI list, from JSON text and from an expression, sent in the order given;
 * invalid storyboards are refused before any request, naming the scene and field.
 */
import type { INodeParameters } from 'n8n-workflow';

import { MediaGatewayStoryboard } from '../../nodes/MediaGatewayStoryboard/MediaGatewayStoryboard.node';
import { posts, runGateway, startSim, type RunOptions, type Simulator } from './helpers';

let sim: Simulator;

beforeAll(async () => {
	sim = await startSim({ videoCompleteAfterMs: 300 });
});

afterAll(async () => {
	await sim.close();
});

beforeEach(() => {
	sim.reset();
});

const storyboard = (parameters: INodeParameters, options?: RunOptions) =>
	runGateway(sim, new MediaGatewayStoryboard(), parameters, options);

const SCENES = [
	{ prompt: 'A sunrise over a quiet harbour', duration: 3 },
	{ prompt: 'Fishing boats leave the harbour', duration: 4 },
	{ prompt: 'Gulls circle above the nets', duration: 2 },
];

function params(overrides: INodeParameters = {}): INodeParameters {
	return {
		operation: 'create',
		scenesInput: 'list',
		scenes: { scene: SCENES },
		model: 'vidmodel',
		size: '1280x720',
		callbackUrl: '',
		completion: 'returnTask',
		pollIntervalSeconds: 0.1,
		waitTimeoutMinutes: 1,
		...overrides,
	};
}

describe('scenes are sent in the order given', () => {
	test('UI list: POST /v1/videos with the storyboard, model and size', async () => {
		const result = await storyboard(params({ model: 'vidmodel-pro', size: '1920x1080' }));

		expect(result.error).toBeUndefined();
		const sent = posts(sim);
		expect(sent).toHaveLength(1);
		expect(sent[0].path).toBe('/v1/videos');
		expect(sent[0].body).toEqual({ model: 'vidmodel-pro', size: '1920x1080', storyboard: SCENES });
		const [task] = [...sim.tasks.values()];
		expect(result.items[0].json).toMatchObject({
			id: task.id,
			taskId: task.id,
			status: 'processing',
			state: 'running',
		});
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	test('UI list in another order is sent in that order', async () => {
		const reordered = [SCENES[2], SCENES[0], SCENES[1]];
		const result = await storyboard(params({ scenes: { scene: reordered } }));

		expect(result.error).toBeUndefined();
		expect(posts(sim)[0].body.storyboard).toEqual(reordered);
	});

	test('JSON text', async () => {
		const result = await storyboard(
			params({ scenesInput: 'json', scenesJson: JSON.stringify(SCENES, null, 2) }),
		);

		expect(result.error).toBeUndefined();
		expect(posts(sim)[0].body.storyboard).toEqual(SCENES);
	});

	test('an expression returning an array, per item', async () => {
		const second = [
			{ prompt: 'Night falls on the harbour', duration: 5 },
			{ prompt: 'Lanterns on the water', duration: '2' },
		];
		const result = await storyboard(
			params({ scenesInput: 'json', scenesJson: '={{ $json.scenes }}' }),
			{
				input: [{ json: { scenes: SCENES } }, { json: { scenes: second } }],
			},
		);

		expect(result.error).toBeUndefined();
		const bodies = posts(sim).map((r) => r.body.storyboard);
		expect(bodies).toHaveLength(2);
		// Numeric text from an expression becomes the integer the gateway wants.
		const secondSent = [second[0], { prompt: 'Lanterns on the water', duration: 2 }];
		expect(bodies).toEqual(expect.arrayContaining([SCENES, secondSent]));
		const tasks = [...sim.tasks.values()];
		const taskOf = (scenes: unknown) =>
			tasks.find(
				(t) =>
					JSON.stringify((t as unknown as { storyboard: unknown }).storyboard) ===
					JSON.stringify(scenes),
			)!;
		expect(result.items.map((i) => i.json.taskId)).toEqual([
			taskOf(SCENES).id,
			taskOf(secondSent).id,
		]);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	test('Wait Until Done returns the finished storyboard video', async () => {
		const result = await storyboard(params({ completion: 'poll', size: '640x360' }));

		expect(result.error).toBeUndefined();
		const [task] = [...sim.tasks.values()];
		expect(result.items[0].json).toMatchObject({
			taskId: task.id,
			state: 'succeeded',
			status: 'completed',
			video: {
				url: `${sim.url}/files/videos/${task.id}.mp4`,
				duration: 9,
				width: 640,
				height: 360,
			},
		});
	});

	test('Callback URL is sent as notifyHook', async () => {
		const hook = 'https://n8n.example.com/webhook/abc/media-gateway';
		const result = await storyboard(params({ callbackUrl: hook }));

		expect(result.error).toBeUndefined();
		expect(posts(sim)[0].body.notifyHook).toBe(hook);
	});
});

describe('invalid storyboards: NodeOperationError naming the scene and field, nothing sent', () => {
	const cases: Array<[string, INodeParameters, RegExp[]]> = [
		['empty list', params({ scenes: { scene: [] } }), [/Scene/, /at least one scene/]],
		[
			'empty JSON array',
			params({ scenesInput: 'json', scenesJson: '[]' }),
			[/Scene/, /at least one scene/],
		],
		[
			'a scene without prompt (list)',
			params({ scenes: { scene: [SCENES[0], { prompt: '  ', duration: 3 }] } }),
			[/Scene #2/, /Prompt/],
		],
		[
			'a scene without prompt (JSON)',
			params({
				scenesInput: 'json',
				scenesJson: JSON.stringify([SCENES[0], SCENES[1], { duration: 3 }]),
			}),
			[/Scene #3/, /Prompt/],
		],
		[
			'a non-integer duration (list)',
			params({ scenes: { scene: [SCENES[0], { prompt: 'half a beat', duration: 2.5 }] } }),
			[/Scene #2/, /Duration/],
		],
		[
			'a non-numeric duration (JSON)',
			params({
				scenesInput: 'json',
				scenesJson: JSON.stringify([{ prompt: 'a', duration: 'long' }]),
			}),
			[/Scene #1/, /Duration/],
		],
		[
			'a zero duration (expression)',
			params({ scenesInput: 'json', scenesJson: '={{ [{ "prompt": "a", "duration": 0 }] }}' }),
			[/Scene #1/, /Duration/],
		],
		[
			'scenes JSON that is not an array',
			params({ scenesInput: 'json', scenesJson: '{"prompt": "a"}' }),
			[/array/],
		],
		[
			'scenes JSON that does not parse',
			params({ scenesInput: 'json', scenesJson: '[{"prompt": ' }),
			[/JSON/],
		],
	];

	test.each(cases)('%s', async (_name, parameters, patterns) => {
		const result = await storyboard(parameters);

		expect(result.error).toBeDefined();
		expect(result.error!.name).toBe('NodeOperationError');
		for (const pattern of patterns) expect(result.error!.message).toMatch(pattern);
		expect(result.error!.itemIndex).toBe(0);
		expect(sim.requests).toHaveLength(0);
	});

	test('the error names the item whose storyboard is invalid', async () => {
		const result = await storyboard(
			params({ scenesInput: 'json', scenesJson: '={{ $json.scenes }}' }),
			{
				continueOnFail: true,
				input: [
					{ json: { scenes: SCENES } },
					{ json: { scenes: [{ prompt: 'x', duration: 1.25 }] } },
				],
			},
		);

		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(2);
		expect(result.items[0].json.taskId).toBeDefined();
		expect(String(result.items[1].json.error)).toMatch(/Scene #1.*Duration/);
		expect(String(result.items[1].json.description)).toMatch(/item 1/);
		expect(result.items[1].pairedItem).toEqual({ item: 1 });
		expect(posts(sim)).toHaveLength(1);
	});
});
