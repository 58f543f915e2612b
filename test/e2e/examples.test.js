'use strict';
/**
 * Every example workflow in examples/ runs headless in a real n8n (the built package installed the way
 * n8n installs community packages) against the gateway simulator, and each node's output is checked:
 * fields, binary files and their bytes, item order and pairing, and what the gateway received.
 * Run: npx jest -c jest.e2e.config.js --runInBand test/e2e/examples.test.js
 */
const { PNG_SIGNATURE, pngFor, mp4Bytes } = require('../../dev/simulator');
const {
	DEMO_CREDENTIAL_ID,
	DEMO_CREDENTIAL_NAME,
	loadExamples,
	runWorkflow,
	startStack,
} = require('./support');

const PACKAGE_PREFIX = 'n8n-nodes-media-gateway.';
const PUBLIC_NODE_TYPES = [
	'mediaGatewayImage',
	'mediaGatewayVideo',
	'mediaGatewayStoryboard',
	'mediaGatewayCharacter',
	'mediaGatewayTrigger',
];
/** The examples this file runs; examples/ may hold more (the callback ones run inside `n8n start` elsewhere). */
const MANUAL_EXAMPLES = [
	'image-generate-download',
	'image-edit-from-binary',
	'video-pro-wait',
	'image-to-video',
	'storyboard-three-scenes',
	'character-create',
];
const MANUAL_TRIGGER = 'When clicking ‘Execute workflow’';

describe('examples/*.json are importable workflows', () => {
	const examples = loadExamples();

	test('the six manual examples exist', () => {
		expect(Object.keys(examples)).toEqual(expect.arrayContaining(MANUAL_EXAMPLES));
	});

	test.each(Object.keys(examples))(
		'%s: ids, names, connections, credential and a sticky note',
		(name) => {
			const workflow = examples[name];
			expect(workflow.id).toMatch(/^[A-Za-z0-9]{8,36}$/);
			expect(workflow.name).toMatch(/^Media Gateway: /);
			expect(workflow.active).toBe(false);
			const names = workflow.nodes.map((n) => n.name);
			expect(new Set(names).size).toBe(names.length);
			expect(new Set(workflow.nodes.map((n) => n.id)).size).toBe(names.length);
			for (const [from, outputs] of Object.entries(workflow.connections)) {
				expect(names).toContain(from);
				for (const target of outputs.main.flat()) expect(names).toContain(target.node);
			}
			const note = workflow.nodes.find((n) => n.type === 'n8n-nodes-base.stickyNote');
			expect(note?.parameters.content).toMatch(/^## \S/);
			for (const node of workflow.nodes.filter((n) => n.type.startsWith(PACKAGE_PREFIX))) {
				expect(PUBLIC_NODE_TYPES).toContain(node.type.slice(PACKAGE_PREFIX.length));
				expect(node.typeVersion).toBe(1);
				if (node.type !== `${PACKAGE_PREFIX}mediaGatewayTrigger`) {
					expect(node.credentials).toEqual({
						mediaGatewayApi: { id: DEMO_CREDENTIAL_ID, name: DEMO_CREDENTIAL_NAME },
					});
				}
			}
			if (MANUAL_EXAMPLES.includes(name)) {
				const start = workflow.nodes.find((n) => n.name === MANUAL_TRIGGER);
				expect(start.type).toBe('n8n-nodes-base.manualTrigger');
				// Every other non-note node is reachable from the Manual Trigger.
				const reached = new Set([MANUAL_TRIGGER]);
				const queue = [MANUAL_TRIGGER];
				while (queue.length > 0) {
					for (const { node } of workflow.connections[queue.shift()]?.main.flat() ?? []) {
						if (!reached.has(node)) queue.push(node);
						reached.add(node);
					}
				}
				const runnable = workflow.nodes
					.filter((n) => n.type !== 'n8n-nodes-base.stickyNote')
					.map((n) => n.name);
				expect([...reached].sort()).toEqual(runnable.sort());
			}
		},
	);
});

describe('the examples run in a real n8n against the simulator', () => {
	let stack;
	const timings = {};

	beforeAll(async () => {
		const t0 = Date.now();
		// Videos finish after 1 s (pro: 2 s) so that Wait Until Done polls a few times at its 1 s interval.
		stack = await startStack({ simulator: { videoCompleteAfterMs: 1000 } });
		timings.setup = Date.now() - t0;
		Object.assign(timings, stack.timings);
	});

	afterAll(async () => {
		if (stack) await stack.stop();
		console.log(`examples e2e timings (ms): ${JSON.stringify(timings)}`);
	});

	/** Runs one example; returns its per-node outputs and the requests the simulator got meanwhile. */
	async function run(name) {
		const before = stack.sim.requests.length;
		const t0 = Date.now();
		const result = await runWorkflow(stack.host, stack.examples[name].id);
		timings[name] = Date.now() - t0;
		const requests = stack.sim.requests.slice(before);
		expect({ exitCode: result.exitCode, status: result.status, error: result.error }).toEqual({
			exitCode: 0,
			status: 'success',
			error: null,
		});
		// The simulator answers 401 without a valid key, so a success already proves the right key was sent;
		// the log shows it redacted.
		for (const request of requests) expect(request.headers.authorization).toBe('Bearer ***');
		return { result, nodes: result.nodes, requests };
	}

	const posts = (requests, path) => requests.filter((r) => r.method === 'POST' && r.path === path);
	const dataUri = (png) => `data:image/png;base64,${png.toString('base64')}`;

	/** An image output item: fields parsed from the gateway answer, and the PNG it points at downloaded. */
	async function expectImageItem(item, { operation, prompt, field = 'data' }) {
		const { json } = item;
		expect(json).toMatchObject({
			operation,
			prompt,
			resolution: '1024x1024',
			width: 1024,
			height: 1024,
			isImageSafe: true,
			index: 0,
		});
		expect(Number.isInteger(json.seed)).toBe(true);
		expect(json.url).toBe(`${stack.sim.url}/files/images/${json.seed}.png`);
		expect(json.createdAt).toBe(new Date(json.created * 1000).toISOString());
		expect(item.binary[field]).toMatchObject({
			mimeType: 'image/png',
			fileName: `${json.seed}.png`,
			fileExtension: 'png',
		});
		const bytes = await stack.host.readBinary(item.binary[field]);
		expect(bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
		expect(bytes.equals(pngFor(String(json.seed)))).toBe(true);
		return bytes;
	}

	/** A finished video output item, with the MP4 downloaded. */
	async function expectVideoItem(item) {
		const { json } = item;
		expect(json.taskId).toMatch(/^vid_/);
		expect(json).toMatchObject({
			id: json.taskId,
			state: 'succeeded',
			status: 'completed',
			video: { url: `${stack.sim.url}/files/videos/${json.taskId}.mp4`, width: 1280, height: 720 },
		});
		expect(item.binary.data).toMatchObject({
			mimeType: 'video/mp4',
			fileName: `${json.taskId}.mp4`,
			fileExtension: 'mp4',
		});
		const bytes = await stack.host.readBinary(item.binary.data);
		expect(bytes.toString('latin1', 4, 8)).toBe('ftyp');
		expect(bytes.equals(mp4Bytes(4096))).toBe(true);
		return json.taskId;
	}

	test('image-generate-download: one image per prompt, in input order, each paired with its prompt', async () => {
		const { nodes, requests } = await run('image-generate-download');
		const prompts = nodes['Three prompts'].items.map((i) => i.json.prompt);
		expect(prompts).toHaveLength(3);
		const images = nodes['Generate image'].items;
		expect(images).toHaveLength(3);
		for (const [index, item] of images.entries()) {
			expect(item.pairedItem).toEqual({ item: index });
			await expectImageItem(item, { operation: 'generate', prompt: prompts[index] });
		}
		expect(new Set(images.map((i) => i.json.seed)).size).toBe(3);

		const sent = posts(requests, '/imgmodel/v1/imgmodel-v3/generate');
		// Items run concurrently, so arrival order is free; the output order above is not.
		expect(sent.map((r) => r.body).sort((a, b) => a.prompt.localeCompare(b.prompt))).toEqual(
			[...prompts].sort().map((prompt) => ({
				prompt,
				aspect_ratio: 'ASPECT_1_1',
				model: 'V_3',
				rendering_speed: 'TURBO',
			})),
		);
		expect(
			requests
				.filter((r) => r.method === 'GET')
				.map((r) => r.path)
				.sort(),
		).toEqual(images.map((i) => `/files/images/${i.json.seed}.png`).sort());
	});

	test('image-edit-from-binary: the generated PNG goes to Edit as a data URI, the edit comes back as a PNG', async () => {
		const { nodes, requests } = await run('image-edit-from-binary');
		const [generated] = nodes['Generate image'].items;
		const original = await expectImageItem(generated, {
			operation: 'generate',
			prompt: 'A red bicycle leaning against a white brick wall, morning light',
		});
		const edits = nodes['Edit image'].items;
		expect(edits).toHaveLength(1);
		expect(edits[0].pairedItem).toEqual({ item: 0 });
		await expectImageItem(edits[0], {
			operation: 'edit',
			prompt: 'Paint the bicycle sky blue and add a wicker basket',
		});
		expect(edits[0].json.seed).not.toBe(generated.json.seed);

		const [edit] = posts(requests, '/imgmodel/v1/imgmodel-v3/edit');
		// Exactly these fields: Mask Source "None" sends no mask, the empty Style no style_type.
		expect(edit.body).toEqual({
			prompt: 'Paint the bicycle sky blue and add a wicker basket',
			image: dataUri(original),
		});
	});

	test('video-pro-wait: a vidmodel-pro task, polled until done, the MP4 downloaded', async () => {
		const { nodes, requests } = await run('video-pro-wait');
		const items = nodes['Create pro video'].items;
		expect(items).toHaveLength(1);
		expect(items[0].json.video.duration).toBe(5);
		const taskId = await expectVideoItem(items[0]);

		const [create] = posts(requests, '/v1/videos');
		expect(create.body).toEqual({
			model: 'vidmodel-pro',
			prompt: 'A hot-air balloon rising over misty hills at sunrise, slow aerial shot',
			size: '1280x720',
			duration: 5,
		});
		expect(stack.sim.tasks.get(taskId).model).toBe('vidmodel-pro');
		// Done after 2 s at a 1 s interval: still processing at least once, then completed.
		const polls = requests.filter((r) => r.method === 'GET' && r.path === `/v1/videos/${taskId}`);
		expect(polls.length).toBeGreaterThanOrEqual(2);
		expect(requests.at(-1).path).toBe(`/files/videos/${taskId}.mp4`);
	});

	test('image-to-video: the generated image is the reference image (image_url data URI) of the video', async () => {
		const { nodes, requests } = await run('image-to-video');
		const [frame] = nodes['Generate first frame'].items;
		const png = await expectImageItem(frame, {
			operation: 'generate',
			prompt: 'A koi pond seen from above, autumn leaves on the water',
		});
		const items = nodes['Animate the image'].items;
		expect(items).toHaveLength(1);
		const taskId = await expectVideoItem(items[0]);

		const [create] = posts(requests, '/v1/videos');
		expect(create.body).toEqual({
			model: 'vidmodel',
			prompt: 'The koi swim slowly in circles, leaves drift with the ripples',
			size: '1280x720',
			duration: 5,
			image_url: dataUri(png),
		});
		expect(stack.sim.tasks.get(taskId).image_url).toBe(dataUri(png));
		expect(posts(requests, '/imgmodel/v1/imgmodel-v3/generate')[0].body.aspect_ratio).toBe(
			'ASPECT_16_9',
		);
	});

	test('storyboard-three-scenes: the three scenes are sent in order and the video comes back', async () => {
		const { nodes, requests } = await run('storyboard-three-scenes');
		const scenes = stack.examples['storyboard-three-scenes'].nodes.find(
			(n) => n.name === 'Create storyboard video',
		).parameters.scenes.scene;
		expect(scenes).toHaveLength(3);
		const items = nodes['Create storyboard video'].items;
		expect(items).toHaveLength(1);
		const taskId = await expectVideoItem(items[0]);
		// The simulator makes a storyboard as long as its scenes together.
		expect(items[0].json.video.duration).toBe(scenes.reduce((sum, s) => sum + s.duration, 0));

		const [create] = posts(requests, '/v1/videos');
		expect(create.body).toEqual({ model: 'vidmodel', size: '1280x720', storyboard: scenes });
		expect(create.body.storyboard.map((s) => s.prompt)).toEqual([
			'Dawn over a quiet fishing harbour, gulls on the posts',
			'A small blue boat leaves the harbour, its wake catching the light',
			'The boat on the open sea at noon, seen from high above',
		]);
		expect(stack.sim.tasks.get(taskId).storyboard).toEqual(scenes);
	});

	test('character-create: name, description and the portrait URL sent; the gateway answer passed through', async () => {
		const { nodes, requests } = await run('character-create');
		const [portrait] = nodes['Generate portrait'].items;
		// Download is off here: only the URL travels on.
		expect(portrait.binary).toBeUndefined();
		expect(portrait.json.url).toBe(`${stack.sim.url}/files/images/${portrait.json.seed}.png`);

		const [create] = posts(requests, '/vidmodel/v1/characters');
		expect(create.body).toEqual({
			name: 'Captain Mira',
			description:
				'A tall woman in her forties with short silver hair, a navy pea coat and a brass compass necklace',
			reference_images: [portrait.json.url],
		});
		const items = nodes['Create character'].items;
		expect(items).toHaveLength(1);
		expect(items[0].pairedItem).toEqual({ item: 0 });
		expect(items[0].json).toEqual({
			id: expect.stringMatching(/^char_/),
			name: 'Captain Mira',
			description: create.body.description,
			reference_images: [portrait.json.url],
			created_at: expect.any(Number),
		});
		expect(requests.some((r) => r.path.startsWith('/files/'))).toBe(false);
	});

	test('n8n never printed the API key', async () => {
		// The host redacts known secrets from what it captures and counts each time n8n printed one.
		expect(stack.host.redactions).toBe(0);
		expect(stack.host.logs()).not.toContain(stack.apiKey);
		const [row] = await stack.host.query('SELECT data FROM credentials_entity WHERE id = ?', [
			DEMO_CREDENTIAL_ID,
		]);
		expect(row.data).not.toContain(stack.apiKey);
	});
});
