'use strict';
/**
 * The nodes in n8n's own editor, in a real browser (Debian's Chromium driven by playwright-core), against
 * the pinned n8n with the package installed the community way and the gateway simulator behind it:
 * what a user sees, clicks and maps. Selectors are n8n's data-test-ids. Assertions are about what
 * defines the feature (nodes found, icons load, operations and parameters listed, display options,
 * runs that produce an image and a video, credential test answers, schemas), not exact wording that
 * the node descriptions may reword. Screenshots of each step go to .cache/test-results/editor/.
 *
 * Needs: npm run build, bash dev/n8n-host/install.sh, bash dev/n8n-host/install-browser.sh.
 * Run:   npx jest -c jest.editor.config.js
 * README pictures: UPDATE_README_SCREENSHOTS=1 npx jest -c jest.editor.config.js
 */
const fs = require('node:fs');
const path = require('node:path');

const {
	startEditorStack,
	shrinkPng,
	builtNode,
	visibleProperties,
	PACKAGE,
	REPO_ROOT,
} = require('./support');

/** The nodes and, for action nodes, the operations (parameter values) that define the package. */
const NODES = [
	{
		dir: 'MediaGatewayImage',
		className: 'MediaGatewayImage',
		operations: ['generate', 'edit', 'remix', 'reframe', 'replaceBackground'],
	},
	{
		dir: 'MediaGatewayVideo',
		className: 'MediaGatewayVideo',
		operations: ['create', 'createUnified', 'get', 'wait'],
	},
	{ dir: 'MediaGatewayStoryboard', className: 'MediaGatewayStoryboard', operations: ['create'] },
	{ dir: 'MediaGatewayCharacter', className: 'MediaGatewayCharacter', operations: ['create'] },
	{ dir: 'MediaGatewayTrigger', className: 'MediaGatewayTrigger', operations: [] },
].map((n) => ({ ...n, description: builtNode(n.dir, n.className).description }));
const byName = Object.fromEntries(NODES.map((n) => [n.description.name, n]));
const IMAGE = byName.mediaGatewayImage;
const VIDEO = byName.mediaGatewayVideo;

/**
 * Parameters that define each operation (names are what saved workflows store): a panel missing one
 * fails here even if the description dropped it on purpose.
 */
const KEY_PARAMETERS = {
	mediaGatewayImage: {
		generate: ['prompt', 'aspectRatio', 'additionalFields', 'options'],
		edit: ['prompt', 'imageSource', 'imageBinaryField', 'maskSource', 'styleType', 'options'],
		remix: ['prompt', 'imageSource', 'imageBinaryField', 'imageWeight', 'options'],
		reframe: ['imageSource', 'imageBinaryField', 'resolution', 'options'],
		replaceBackground: ['prompt', 'imageSource', 'imageBinaryField', 'options'],
	},
	mediaGatewayVideo: {
		create: [
			'model',
			'prompt',
			'size',
			'duration',
			'referenceImageSource',
			'callbackUrl',
			'completion',
			'pollIntervalSeconds',
			'waitTimeoutMinutes',
			'options',
		],
		createUnified: [
			'model',
			'prompt',
			'aspectRatio',
			'callbackUrl',
			'completion',
			'pollIntervalSeconds',
			'waitTimeoutMinutes',
			'options',
		],
		get: ['taskId'],
		wait: ['taskId', 'pollIntervalSeconds', 'waitTimeoutMinutes'],
	},
	mediaGatewayStoryboard: {
		create: ['scenesInput', 'scenes', 'model', 'size', 'callbackUrl', 'completion', 'options'],
	},
	mediaGatewayCharacter: { create: ['name', 'description', 'referenceImages', 'options'] },
	mediaGatewayTrigger: {
		'': ['kinds', 'finalOnly', 'taskIds', 'ignoreDuplicates', 'authentication'],
	},
};

/** Fields users map from each operation's output, which the Schema view must list before any run. */
const MAPPED_FIELDS = {
	'mediaGatewayImage/generate': ['url', 'seed', 'width', 'height', 'isImageSafe'],
	'mediaGatewayVideo/create': ['taskId', 'state', 'status', 'video', 'video.url'],
};

const README_SHOTS = path.join(REPO_ROOT, 'docs', 'screenshots');
const README_WIDTH = 720;

let stack;
let page;

const canvasNode = (name) => page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`);
const ndv = () => page.getByTestId('ndv');
const parameters = () => page.getByTestId('node-parameters');
const parameterInput = (name) => parameters().getByTestId(`parameter-input-${name}`);

async function openNode(name) {
	// A panel or menu left open (by a test that failed half-way) would cover the canvas.
	if (await ndv().isVisible()) await closeNdv();
	await canvasNode(name).dblclick();
	await ndv().waitFor();
}

async function closeNdv() {
	await page.getByTestId('ndv-close-button').click();
	await ndv().waitFor({ state: 'hidden' });
}

/** Clicks the entry of the open dropdown whose title is `label` (its description may follow). */
async function pickOption(label) {
	await page
		.getByRole('option')
		.filter({ visible: true })
		.filter({ has: page.getByText(label, { exact: true }) })
		.first()
		.click();
}

/** Chooses an option of an options parameter by its value (the label comes from the built description). */
async function choose(description, parameterName, value) {
	const property = description.properties.find(
		(p) => p.name === parameterName && p.options?.some((o) => o.value === value),
	);
	const label = property.options.find((o) => o.value === value).name;
	await parameterInput(parameterName).click();
	await pickOption(label);
	await page.getByRole('option').filter({ visible: true }).first().waitFor({ state: 'hidden' });
	// The select shows the chosen label once the change is applied.
	await page.waitForFunction(
		({ name, text }) =>
			[...document.querySelectorAll(`[data-test-id="parameter-input-${name}"] input`)].some(
				(input) => input.value === text,
			),
		{ name: parameterName, text: label },
	);
}

/** Asserts the panel shows exactly the parameters the description shows for these values. */
async function expectPanelFor(description, values) {
	const expected = visibleProperties(description, values);
	const missing = [];
	for (const property of expected) {
		if (property.type === 'notice') continue;
		const locator =
			property.type === 'collection' || property.type === 'fixedCollection'
				? parameters()
						.locator('[data-test-id="parameter-item"]')
						.filter({ hasText: property.displayName })
						.first()
				: parameterInput(property.name);
		if (!(await locator.isVisible())) {
			missing.push(property.name);
			continue;
		}
		// The hint in an empty box is this operation's own (several operations declare a Prompt).
		if (property.type === 'string' && property.placeholder) {
			const box = locator.locator('input, textarea').first();
			expect({ name: property.name, placeholder: await box.getAttribute('placeholder') }).toEqual({
				name: property.name,
				placeholder: property.placeholder,
			});
		}
	}
	expect({ values, missing }).toEqual({ values, missing: [] });
	// Several properties may share a name (one per operation); hidden are the names none of the shown ones has.
	const shownNames = new Set(expected.map((p) => p.name));
	const hidden = description.properties.filter(
		(p) =>
			!shownNames.has(p.name) &&
			p.type !== 'notice' &&
			!['collection', 'fixedCollection'].includes(p.type),
	);
	for (const property of hidden)
		expect({
			shown: property.name,
			visible: await parameterInput(property.name).isVisible(),
		}).toEqual({ shown: property.name, visible: false });
	return expected;
}

/** Waits until the node's last run in the open panel ended, and returns whether it succeeded. */
async function runStatus() {
	const output = page.getByTestId('output-panel');
	const status = output
		.getByTestId('node-run-status-success')
		.or(output.getByTestId('node-run-status-danger'));
	await status.first().waitFor({ timeout: 120_000 });
	return (await output.getByTestId('node-run-status-success').count()) > 0 ? 'success' : 'error';
}

async function executeWorkflowAndOpen(nodeName) {
	const run = page.waitForResponse(
		(r) => /\/rest\/workflows\/[^/]+\/run/.test(r.url()) && r.request().method() === 'POST',
	);
	await page.getByTestId('execute-workflow-button').click();
	expect((await run).status()).toBe(200);
	await openNode(nodeName);
	const status = await runStatus();
	if (status !== 'success') {
		const message = await page
			.getByTestId('output-panel')
			.getByTestId('node-error-message')
			.innerText()
			.catch(() => '?');
		throw new Error(`${nodeName} failed in the editor: ${message}`);
	}
}

/** Opens the Binary view of the output panel and the preview of its first file. */
async function previewBinary(kind) {
	const output = page.getByTestId('output-panel');
	await output.getByTestId('radio-button-binary').click();
	await output.getByTestId('ndv-binary-data_0').waitFor();
	await output.getByTestId('ndv-view-binary-data').first().click();
	// The file itself, served by n8n's binary-data endpoint (not a node icon).
	return kind === 'video'
		? output.locator('video').first()
		: output.locator('img[src*="binary-data"]').first();
}

async function saveReadmeShot(name) {
	// Toasts ("Workflow executed successfully") would cover the small picture.
	for (const close of await page.locator('.el-notification__closeBtn').all())
		await close.click().catch(() => undefined);
	await page
		.locator('.el-notification')
		.first()
		.waitFor({ state: 'hidden', timeout: 10_000 })
		.catch(() => undefined);
	const png = await page.screenshot();
	const small = await shrinkPng(stack.browser, png, README_WIDTH);
	fs.writeFileSync(path.join(stack.resultsDir, `readme-${name}.png`), small);
	if (process.env.UPDATE_README_SCREENSHOTS === '1') {
		fs.mkdirSync(README_SHOTS, { recursive: true });
		fs.writeFileSync(path.join(README_SHOTS, `${name}.png`), small);
	}
}

/** test() that keeps a screenshot of the page when the test fails, named after it. */
function browserTest(name, fn) {
	return test(name, async (...args) => {
		try {
			await fn(...args);
		} catch (error) {
			await stack
				?.shot(`FAILED-${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`)
				.catch(() => undefined);
			throw error;
		}
	});
}
browserTest.each = (table) => (name, fn) => {
	for (const row of table) browserTest(name.replace('%s', row[0]), () => fn(...row));
};

beforeAll(async () => {
	stack = await startEditorStack();
	page = stack.page;
});

afterAll(async () => {
	if (stack) await stack.stop();
});

/** Creates a video task on the simulator and waits until the gateway reports it completed; returns its id. */
async function finishedSimulatorTask() {
	const headers = { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' };
	const created = await fetch(`${stack.sim.url}/v1/videos`, {
		method: 'POST',
		headers,
		body: JSON.stringify({
			model: 'vidmodel',
			prompt: 'A test event for the trigger',
			size: '1280x720',
			duration: 5,
		}),
	});
	expect(created.status).toBe(200);
	const { id } = await created.json();
	for (const deadline = Date.now() + 60_000; ;) {
		const task = await (await fetch(`${stack.sim.url}/v1/videos/${id}`, { headers })).json();
		if (task.status === 'completed') return id;
		if (Date.now() > deadline) throw new Error(`simulator task ${id} did not complete within 60 s`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

describe("the Media Gateway nodes in n8n's editor", () => {
	browserTest(
		'the node creator finds all five nodes by "Media Gateway", with their icons loaded',
		async () => {
			await page.goto('/workflow/new');
			await page.getByTestId('canvas-plus-button').click();
			await page.getByTestId('node-creator-search-bar').fill('Media Gateway');
			const items = page.getByTestId('node-creator').getByTestId('item-iterator-item');
			const names = NODES.map((n) => n.description.displayName);
			for (const name of names) await items.filter({ hasText: name }).first().waitFor();
			const shown = await page.getByTestId('node-creator-item-name').allInnerTexts();
			expect(shown.filter((text) => text.startsWith('Media Gateway')).sort()).toEqual(
				[...names].sort(),
			);

			// Each item's icon is this package's file and has loaded (an image that 404s has no natural size).
			for (const node of NODES) {
				const icons = items
					.filter({ hasText: node.description.displayName })
					.first()
					.locator('img');
				await icons.first().waitFor();
				for (const icon of await icons.all()) {
					expect(await icon.getAttribute('src')).toContain(
						`/icons/${PACKAGE}/dist/nodes/${node.dir}/`,
					);
					await page.waitForFunction(
						(img) => img.complete && img.naturalWidth > 0,
						await icon.elementHandle(),
					);
				}
			}
			const iconAnswers = stack.assets.filter((a) => a.url.includes('/icons/'));
			expect(iconAnswers.length).toBeGreaterThanOrEqual(NODES.length);
			expect(iconAnswers.filter((a) => a.status !== 200)).toEqual([]);
			await stack.shot('node-creator');
			await saveReadmeShot('node-creator');
		},
	);

	browserTest('each action node lists its operations in the node creator', async () => {
		for (const node of NODES.filter((n) => n.operations.length > 0)) {
			const search = page.getByTestId('node-creator-search-bar');
			await search.fill(node.description.displayName);
			await page
				.getByTestId('node-creator-item-name')
				.filter({ hasText: node.description.displayName })
				.first()
				.click();
			const operation = node.description.properties.find((p) => p.name === 'operation');
			expect(operation.options.map((o) => o.value).sort()).toEqual([...node.operations].sort());
			const actions = operation.options.map((o) => o.action);
			const list = page.getByTestId('node-creator').getByTestId('node-creator-item-name');
			for (const action of actions) await list.filter({ hasText: action }).first().waitFor();
			expect((await list.allInnerTexts()).filter((t) => actions.includes(t)).sort()).toEqual(
				[...actions].sort(),
			);
			await stack.shot(`actions-${node.description.name}`);
			// Back to the search results.
			await page.getByTestId('nodes-list-header').first().locator('button').first().click();
			await search.waitFor();
		}
		await page.keyboard.press('Escape');
	});

	browserTest(
		'a workflow built by clicks: the credential dialog, then Image → Generate runs and shows the picture',
		async () => {
			await page.goto('/workflow/new');
			await page.getByTestId('canvas-plus-button').click();
			await page
				.getByTestId('node-creator-item-name')
				.filter({ hasText: 'Trigger manually' })
				.first()
				.click();
			await page.getByTestId('canvas-node').first().waitFor();
			await page.getByTestId('node-creator-plus-button').click();
			await page.getByTestId('node-creator-search-bar').fill(IMAGE.description.displayName);
			await page
				.getByTestId('node-creator-item-name')
				.filter({ hasText: IMAGE.description.displayName })
				.first()
				.click();
			const generate = IMAGE.description.properties
				.find((p) => p.name === 'operation')
				.options.find((o) => o.value === 'generate');
			await page
				.getByTestId('node-creator-item-name')
				.filter({ hasText: generate.action })
				.first()
				.click();
			await ndv().waitFor();
			await expectPanelFor(IMAGE.description, { operation: 'generate' });

			// The credential dialog, reached from the node as a new user would.
			await page.getByTestId('node-credentials-empty-state').click();
			const dialog = page.getByTestId('editCredential-modal');
			await dialog.waitFor();
			const fill = async (name, value) => {
				const input = dialog.getByTestId(`parameter-input-${name}`).locator('input');
				await input.fill(value);
			};
			const tested = () =>
				page.waitForResponse(
					(r) => r.url().endsWith('/rest/credentials/test') && r.request().method() === 'POST',
				);
			await fill('apiKey', 'not-the-right-key');
			await fill('baseUrl', stack.sim.url);
			let answer = tested();
			await dialog.getByTestId('credential-save-button').click();
			const refused = (await (await answer).json()).data;
			expect(refused.status).toBe('Error');
			expect(refused.message).toMatch(/API key/i);
			expect(refused.message).not.toContain('not-the-right-key');
			// The dialog says so in those words once the user asks for details.
			await dialog.getByText('More details').click();
			await page.getByText(refused.message).first().waitFor();
			await stack.shot('credential-wrong-key');

			await fill('apiKey', stack.apiKey);
			answer = tested();
			await dialog.getByTestId('credential-save-button').click();
			expect((await (await answer).json()).data.status).toBe('OK');
			// A credential made from a node that tests OK is saved, and n8n closes the dialog and selects it.
			await dialog.waitFor({ state: 'hidden' });
			await parameters()
				.getByTestId('node-credentials-select')
				.or(ndv().getByTestId('node-credentials-select'))
				.first()
				.waitFor();
			await stack.shot('credential-right-key');

			await parameterInput('prompt').locator('textarea').fill('A lighthouse at dawn, watercolor');
			await choose(IMAGE.description, 'aspectRatio', 'ASPECT_16_9');
			await stack.shot('image-panel');
			await closeNdv();

			await executeWorkflowAndOpen(IMAGE.description.defaults.name);
			const output = page.getByTestId('output-panel');
			await expect(output.getByTestId('ndv-items-count').innerText()).resolves.toMatch(
				/\b1 item\b/,
			);
			await output.getByTestId('radio-button-json').click();
			await output.getByText('isImageSafe').first().waitFor();
			const picture = await previewBinary('img');
			await picture.waitFor();
			const size = await picture.evaluate(async (img) => {
				await img.decode();
				return { width: img.naturalWidth, height: img.naturalHeight };
			});
			// The simulator draws at the requested aspect ratio: 16:9.
			expect(size).toEqual({ width: 512, height: 288 });
			await stack.shot('image-run-binary');
			await saveReadmeShot('image-run');
			await page.keyboard.press('Escape');
			if (await ndv().isVisible()) await closeNdv();
		},
	);

	browserTest('then Video → Create (Wait Until Done) from that image shows the video', async () => {
		if (await ndv().isVisible()) await closeNdv();
		await canvasNode(IMAGE.description.defaults.name).click();
		await page.getByTestId('node-creator-plus-button').click();
		await page.getByTestId('node-creator-search-bar').fill(VIDEO.description.displayName);
		await page
			.getByTestId('node-creator-item-name')
			.filter({ hasText: VIDEO.description.displayName })
			.first()
			.click();
		const create = VIDEO.description.properties
			.find((p) => p.name === 'operation')
			.options.find((o) => o.value === 'create');
		await page
			.getByTestId('node-creator-item-name')
			.filter({ hasText: create.action })
			.first()
			.click();
		await ndv().waitFor();
		// The credential made above is picked for the new node.
		await page
			.getByTestId('node-credentials-select')
			.or(parameters().getByTestId('node-credentials-select'))
			.first()
			.waitFor();
		await parameterInput('prompt')
			.locator('textarea')
			.fill('The lighthouse beam sweeping over the waves');
		await choose(VIDEO.description, 'referenceImageSource', 'binary');
		expect(await parameterInput('completion').locator('input').first().inputValue()).toBe(
			VIDEO.description.properties
				.find((p) => p.name === 'completion')
				.options.find((o) => o.value === 'poll').name,
		);
		await parameterInput('pollIntervalSeconds').locator('input').fill('0.5');
		// Options → Download Video, switched on.
		const download = VIDEO.description.properties
			.find((p) => p.name === 'options' && p.displayOptions.show.completion?.includes('poll'))
			.options.find((o) => o.name === 'download');
		await parameters()
			.getByTestId('collection-parameter-add')
			.filter({ visible: true })
			.first()
			.click();
		await pickOption(download.displayName);
		await parameterInput('download').locator('.el-switch').click();
		await page.waitForFunction(() =>
			document
				.querySelector('[data-test-id="parameter-input-download"] .el-switch')
				?.classList.contains('is-checked'),
		);
		await stack.shot('video-panel');
		await closeNdv();

		await executeWorkflowAndOpen(VIDEO.description.defaults.name);
		const output = page.getByTestId('output-panel');
		await output.getByTestId('radio-button-json').click();
		await output.getByText('succeeded').first().waitFor();
		// The gateway got the picture as the reference image (a data URI of the binary field).
		const createRequest = stack.sim.requests
			.filter((r) => r.method === 'POST' && r.path === '/v1/videos')
			.at(-1);
		expect(createRequest.body.image_url).toMatch(/^data:image\/png;base64,/);
		const video = await previewBinary('video');
		await video.waitFor();
		// It plays: the browser reads its metadata and a duration.
		const duration = await video.evaluate(
			(element) =>
				new Promise((resolve, reject) => {
					const done = () => resolve(element.duration);
					if (element.readyState >= 1) return done();
					element.addEventListener('loadedmetadata', done, { once: true });
					element.addEventListener(
						'error',
						() => reject(new Error(`video error ${element.error?.code}`)),
						{ once: true },
					);
				}),
		);
		expect(duration).toBeGreaterThan(1);
		await stack.shot('video-run-binary');
		await page.keyboard.press('Escape');
		if (await ndv().isVisible()) await closeNdv();
	});

	describe('panels of a workflow that has not run', () => {
		let workflowId;
		const webhookId = '5f0c6c1e-8f7a-4d8e-9b3a-2c1d0e9f8a71';

		beforeAll(async () => {
			const nodes = NODES.map((n, i) => ({
				id: `node-${i}`,
				name: n.description.defaults.name,
				type: `${PACKAGE}.${n.description.name}`,
				typeVersion: 1,
				position: [i * 260, 300],
				parameters: {},
				...(n.description.name === 'mediaGatewayTrigger' ? { webhookId } : {}),
			}));
			const start = {
				id: 'start',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			};
			const after = (name, x) => ({
				id: `after-${x}`,
				name,
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [x, 600],
				parameters: {},
			});
			const imageInChain = {
				...nodes[0],
				id: 'chain-image',
				name: 'Image (not run)',
				position: [260, 600],
				parameters: { operation: 'generate' },
			};
			const videoInChain = {
				...nodes[1],
				id: 'chain-video',
				name: 'Video (not run)',
				position: [260, 800],
				parameters: { operation: 'create' },
			};
			const workflow = await stack.rest('POST', '/rest/workflows', {
				name: 'Editor test: panels',
				settings: { executionOrder: 'v1' },
				nodes: [
					start,
					...nodes,
					imageInChain,
					videoInChain,
					after('After image', 520),
					{ ...after('After video', 520), id: 'after-video', position: [520, 800] },
				],
				connections: {
					Start: {
						main: [
							[
								{ node: 'Image (not run)', type: 'main', index: 0 },
								{ node: 'Video (not run)', type: 'main', index: 0 },
							],
						],
					},
					'Image (not run)': { main: [[{ node: 'After image', type: 'main', index: 0 }]] },
					'Video (not run)': { main: [[{ node: 'After video', type: 'main', index: 0 }]] },
				},
			});
			workflowId = workflow.id;
			await page.goto(`/workflow/${workflowId}`);
			await canvasNode('After video').waitFor();
		});

		browserTest.each(
			NODES.filter((n) => n.operations.length > 0).map((n) => [n.description.displayName, n]),
		)('%s: the panel renders every operation', async (_name, node) => {
			await openNode(node.description.defaults.name);
			for (const operation of node.operations) {
				await choose(node.description, 'operation', operation);
				const shown = await expectPanelFor(node.description, { operation });
				expect({
					operation,
					missing: KEY_PARAMETERS[node.description.name][operation].filter(
						(name) => !shown.some((p) => p.name === name),
					),
				}).toEqual({ operation, missing: [] });
			}
			await stack.shot(`panel-${node.description.name}`);
			await closeNdv();
		});

		browserTest(
			'display options: Wait for Callback shows its notice and Wait Limit, hides Poll Interval; Image Source URL shows the URL',
			async () => {
				await openNode(VIDEO.description.defaults.name);
				await choose(VIDEO.description, 'operation', 'create');
				const notices = parameters().locator('.notice').filter({ visible: true });
				expect(await notices.count()).toBe(0);
				await choose(VIDEO.description, 'completion', 'callback');
				await notices.first().waitFor();
				await parameterInput('callbackWaitLimitMinutes').waitFor();
				await parameterInput('pollIntervalSeconds').waitFor({ state: 'hidden' });
				await parameterInput('callbackUrl').waitFor({ state: 'hidden' });
				await expectPanelFor(VIDEO.description, { operation: 'create', completion: 'callback' });
				await stack.shot('video-wait-for-callback');
				await choose(VIDEO.description, 'completion', 'poll');
				await parameterInput('pollIntervalSeconds').waitFor();
				await notices.first().waitFor({ state: 'hidden' });
				await closeNdv();

				await openNode(IMAGE.description.defaults.name);
				await choose(IMAGE.description, 'operation', 'edit');
				await parameterInput('imageBinaryField').waitFor();
				await choose(IMAGE.description, 'imageSource', 'url');
				await parameterInput('imageUrl').waitFor();
				await parameterInput('imageBinaryField').waitFor({ state: 'hidden' });
				await expectPanelFor(IMAGE.description, { operation: 'edit', imageSource: 'url' });
				await stack.shot('image-source-url');
				await closeNdv();
			},
		);

		browserTest(
			'the trigger panel shows the Production URL guidance and receives a test event',
			async () => {
				const trigger = byName.mediaGatewayTrigger;
				await openNode(trigger.description.defaults.name);
				const shown = await expectPanelFor(trigger.description, {});
				expect(
					KEY_PARAMETERS.mediaGatewayTrigger[''].filter(
						(name) => !shown.some((p) => p.name === name),
					),
				).toEqual([]);
				await parameters()
					.locator('.notice')
					.filter({ hasText: 'Production URL' })
					.first()
					.waitFor();
				await page.getByText('Webhook URLs', { exact: true }).click();
				await page.getByText('Production URL', { exact: true }).click();
				await parameters().getByText(`/webhook/${webhookId}/`).first().waitFor();
				await stack.shot('trigger-production-url');

				await page.getByText('Test URL', { exact: true }).click();
				const testUrlText = await parameters()
					.getByText(`/webhook-test/${webhookId}/`)
					.first()
					.innerText();
				const testUrl = testUrlText.trim();
				expect(testUrl.startsWith(stack.host.url)).toBe(true);
				await page.getByTestId('trigger-execute-button').click();
				await page.getByTestId('trigger-listening').waitFor();
				// A real, finished task: with the credential the editor selected, the trigger confirms final video
				// callbacks with the gateway and refuses one for a task the gateway does not have.
				const taskId = await finishedSimulatorTask();
				const answer = await fetch(testUrl, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({
						id: taskId,
						status: 'succeed',
						type: 'video',
						output: {
							video_url: `${stack.sim.url}/files/videos/${taskId}.mp4`,
							cover_url: '',
							duration: 5,
						},
						created_at: 1_700_000_000,
						updated_at: 1_700_000_100,
					}),
				});
				// Accepted (the exact answer is the trigger's business); the item is what matters here.
				expect(answer.ok).toBe(true);
				const output = page.getByTestId('output-panel');
				await output.getByTestId('radio-button-json').click();
				await output.getByText(taskId).first().waitFor();
				await output.getByText('succeeded').first().waitFor();
				await stack.shot('trigger-test-event');
				await closeNdv();
			},
		);

		browserTest.each(Object.entries(MAPPED_FIELDS))(
			"the Schema view lists %s's output fields before it has run",
			async (key, fields) => {
				const [type, operation] = key.split('/');
				const after = type === 'mediaGatewayImage' ? 'After image' : 'After video';
				await openNode(after);
				const input = page.getByTestId('ndv-input-panel');
				await input.getByTestId('schema-preview-warning').first().waitFor();
				const items = input.getByTestId('run-data-schema-item');
				await items.first().waitFor();
				const paths = await input
					.locator('[data-path]')
					.evaluateAll((els) => els.map((el) => el.getAttribute('data-path')));
				for (const field of fields) expect(paths).toContain(`.${field}`);
				// What the editor asked n8n for (the path n8n 2.41 builds: /schemas/<type>/<x.y.z>/<operation>.json).
				expect(stack.assets).toContainEqual({
					status: 200,
					url: `${stack.host.url}/schemas/${PACKAGE}.${type}/1.0.0/${operation}.json`,
				});
				await stack.shot(`schema-preview-${type}`);
				if (type === 'mediaGatewayImage') await saveReadmeShot('schema-preview');
				await closeNdv();
			},
		);
	});

	browserTest(
		'n8n serves a schema for every operation, and no icon or schema request of the package failed',
		async () => {
			for (const node of NODES) {
				for (const operation of node.operations) {
					const response = await fetch(
						`${stack.host.url}/schemas/${PACKAGE}.${node.description.name}/1.0.0/${operation}.json`,
					);
					expect({ operation, status: response.status }).toEqual({ operation, status: 200 });
					const schema = await response.json();
					expect(Object.keys(schema.properties).length).toBeGreaterThan(3);
				}
			}
			expect(stack.assets.filter((a) => a.status !== 200)).toEqual([]);
			expect(stack.assets.some((a) => a.url.includes('/schemas/'))).toBe(true);
		},
	);
});
