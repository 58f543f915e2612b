/**
 * The Image node through n8n's real execution machinery (n8n-core) and real HTTP against the
 * in-repo gateway simulator.
 */
import { MediaGatewayApi } from '../../credentials/MediaGatewayApi.credentials';
import { MediaGatewayImage } from '../../nodes/MediaGatewayImage/MediaGatewayImage.node';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../nodes/shared/transport/retry';
import { runNode, type RunNodeOptions } from '../../dev/harness/runNode';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startSimulator, makePng, PNG_SIGNATURE } = require('../../dev/simulator');

const API_KEY = 'sk-image-test-0123456789abcdef';

interface SimRequest {
	method: string;
	path: string;
	body: Record<string, unknown> | null;
	headers: Record<string, string>;
	at: number;
}

let sim: {
	url: string;
	requests: SimRequest[];
	inject(fault: Record<string, unknown>): void;
	setLatency(ms: number): void;
	reset(): void;
	close(): Promise<void>;
};

/** The retry policy every node of this file is constructed with (short backoff). */
let retryPolicy: { -readonly [K in keyof RetryPolicy]: RetryPolicy[K] } = {
	...DEFAULT_RETRY_POLICY,
};

beforeAll(async () => {
	sim = await startSimulator({ apiKey: API_KEY, port: 0 });
});
afterAll(async () => {
	await sim.close();
});
beforeEach(() => {
	sim.reset();
	sim.setLatency(0);
	retryPolicy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 20, maxDelayMs: 50 };
});
afterEach(() => {
	retryPolicy = { ...DEFAULT_RETRY_POLICY };
});

function posts(path: string): SimRequest[] {
	return sim.requests.filter((request) => request.method === 'POST' && request.path === path);
}

async function run(parameters: RunNodeOptions['parameters'], extra: Partial<RunNodeOptions> = {}) {
	return await runNode({
		nodeType: new MediaGatewayImage({ retryPolicy }),
		credentialTypes: [new MediaGatewayApi()],
		credentials: { mediaGatewayApi: { apiKey: API_KEY, baseUrl: `${sim.url}/` } },
		parameters,
		...extra,
	});
}

const pngBase64 = (makePng as (w: number, h: number, pixel: () => number[]) => Buffer)(2, 2, () => [
	255, 0, 0, 255,
]).toString('base64');

describe('Generate', () => {
	it('sends every documented Generate field and outputs one item per image with the file downloaded', async () => {
		const result = await run({
			operation: 'generate',
			prompt: 'A lighthouse with the word "HELLO" painted on it',
			aspectRatio: 'ASPECT_16_9',
			additionalFields: {
				magicPromptOption: 'OFF',
				renderingSpeed: 'TURBO',
				styleType: 'REALISTIC',
				negativePrompt: 'fog',
			},
		});
		expect(result.error).toBeUndefined();
		const [request] = posts('/imgmodel/v1/imgmodel-v3/generate');
		expect(request.body).toEqual({
			prompt: 'A lighthouse with the word "HELLO" painted on it',
			aspect_ratio: 'ASPECT_16_9',
			model: 'V_3',
			magic_prompt_option: 'OFF',
			rendering_speed: 'TURBO',
			style_type: 'REALISTIC',
			negative_prompt: 'fog',
		});
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.headers.authorization).toBe('Bearer ***'); // the simulator redacts what it saw

		expect(result.items).toHaveLength(1);
		const [item] = result.items;
		expect(item.json).toMatchObject({
			operation: 'generate',
			prompt: 'A lighthouse with the word "HELLO" painted on it',
			resolution: '1024x1024',
			width: 1024,
			height: 1024,
			isImageSafe: true,
		});
		expect(typeof item.json.seed).toBe('number');
		expect(String(item.json.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\/images\/\d+\.png$/);
		expect(typeof item.json.created).toBe('number');
		expect(new Date(String(item.json.createdAt)).getTime()).toBe(Number(item.json.created) * 1000);
		expect(item.pairedItem).toEqual({ item: 0 });

		const binary = item.binary!.data;
		expect(binary.mimeType).toBe('image/png');
		expect(binary.fileName).toMatch(/^\d+\.png$/);
		const bytes = await result.binaryBuffer(item, 'data');
		expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
	});

	it('keeps the model default V_3, accepts a typed aspect ratio and can skip the download into a named field', async () => {
		const result = await run(
			{
				operation: 'generate',
				prompt: '={{ $json.idea }}',
				aspectRatio: '={{ $json.ratio }}',
				options: { download: false },
			},
			{ input: [{ json: { idea: 'Blue cat', ratio: 'ASPECT_4_3' } }] },
		);
		expect(result.error).toBeUndefined();
		expect(posts('/imgmodel/v1/imgmodel-v3/generate')[0].body).toEqual({
			prompt: 'Blue cat',
			aspect_ratio: 'ASPECT_4_3',
			model: 'V_3',
		});
		expect(result.items[0].binary).toBeUndefined();
		expect(sim.requests.some((request) => request.path.startsWith('/files/'))).toBe(false);
	});

	it('puts the download into the configured binary field', async () => {
		const result = await run({
			operation: 'generate',
			prompt: 'A kite',
			options: { download: true, binaryPropertyName: 'picture' },
		});
		expect(Object.keys(result.items[0].binary ?? {})).toEqual(['picture']);
	});

	it('rejects an aspect ratio that is not ASPECT_<w>_<h> before sending anything', async () => {
		const result = await run(
			{ operation: 'generate', prompt: 'x', aspectRatio: '={{ "16:9" }}' },
			{ input: [{ json: {} }, { json: {} }] },
		);
		expect(result.error?.message).toMatch(
			/Aspect Ratio \(aspect_ratio\) must look like ASPECT_<width>_<height>/,
		);
		expect(result.error?.itemIndex).toBe(0);
		expect(result.error?.name).toBe('NodeOperationError');
		expect(sim.requests).toHaveLength(0);
	});

	it('rejects an empty prompt and names the item', async () => {
		const result = await run(
			{ operation: 'generate', prompt: '={{ $json.p }}' },
			{ input: [{ json: { p: 'ok' } }, { json: { p: '   ' } }] },
		);
		expect(result.error?.message).toBe(
			'Prompt (prompt) is required: enter a description of the image',
		);
		expect(result.error?.itemIndex).toBe(1);
	});
});

describe('Edit, Remix, Reframe, Replace Background', () => {
	const imageItem = {
		json: {},
		binary: { photo: { data: pngBase64, mimeType: 'image/png', fileName: 'p.png' } },
	};

	it('Edit sends a binary field as a data URI, the mask as a URL and the style', async () => {
		const result = await run(
			{
				operation: 'edit',
				prompt: 'Add a hat',
				imageSource: 'binary',
				imageBinaryField: 'photo',
				maskSource: 'url',
				maskUrl: 'https://cdn.example.com/mask.png',
				styleType: 'DESIGN',
				options: { download: false },
			},
			{ input: [imageItem] },
		);
		expect(result.error).toBeUndefined();
		expect(posts('/imgmodel/v1/imgmodel-v3/edit')[0].body).toEqual({
			prompt: 'Add a hat',
			image: `data:image/png;base64,${pngBase64}`,
			mask: 'https://cdn.example.com/mask.png',
			style_type: 'DESIGN',
		});
		expect(result.items[0].json.operation).toBe('edit');
	});

	it('Edit without a mask sends no mask field', async () => {
		await run({
			operation: 'edit',
			prompt: 'Add a hat',
			imageSource: 'url',
			imageUrl: 'https://cdn.example.com/in.png',
			options: { download: false },
		});
		expect(posts('/imgmodel/v1/imgmodel-v3/edit')[0].body).toEqual({
			prompt: 'Add a hat',
			image: 'https://cdn.example.com/in.png',
		});
	});

	it('Edit names the missing binary field and lists the ones the item has', async () => {
		const result = await run(
			{ operation: 'edit', prompt: 'x', imageSource: 'binary', imageBinaryField: 'data' },
			{ input: [imageItem] },
		);
		expect(result.error?.message).toBe('Input item 0 has no binary field "data"');
		expect(result.error?.description).toMatch(/Image Binary Field to one of: photo/);
		expect(sim.requests).toHaveLength(0);
	});

	it('Remix sends image_weight and rejects values outside 0–100 by name', async () => {
		const ok = await run({
			operation: 'remix',
			prompt: 'Same scene at night',
			imageSource: 'base64',
			imageBase64: `data:image/png;base64,${pngBase64}`,
			imageWeight: 80,
			options: { download: false },
		});
		expect(ok.error).toBeUndefined();
		expect(posts('/imgmodel/v1/imgmodel-v3/remix')[0].body).toEqual({
			prompt: 'Same scene at night',
			image: `data:image/png;base64,${pngBase64}`,
			image_weight: 80,
		});

		sim.reset();
		const bad = await run({
			operation: 'remix',
			prompt: 'x',
			imageSource: 'url',
			imageUrl: 'https://cdn.example.com/in.png',
			imageWeight: '={{ 150 }}',
		});
		expect(bad.error?.message).toBe('Image Weight (image_weight) must be from 0 to 100');
		expect(sim.requests).toHaveLength(0);
	});

	it('Reframe sends the resolution as typed and reports the resulting size', async () => {
		const result = await run({
			operation: 'reframe',
			imageSource: 'url',
			imageUrl: 'https://cdn.example.com/in.png',
			resolution: '1536x640',
			options: { download: false },
		});
		expect(posts('/imgmodel/v1/imgmodel-v3/reframe')[0].body).toEqual({
			image: 'https://cdn.example.com/in.png',
			resolution: '1536x640',
		});
		expect(result.items[0].json).toMatchObject({ width: 1536, height: 640 });
	});

	it('Replace Background downloads the result', async () => {
		const result = await run(
			{
				operation: 'replaceBackground',
				prompt: 'A beach',
				imageSource: 'binary',
				imageBinaryField: 'photo',
			},
			{ input: [imageItem] },
		);
		expect(result.error).toBeUndefined();
		expect(posts('/imgmodel/v1/imgmodel-v3/replace-background')[0].body).toMatchObject({
			prompt: 'A beach',
		});
		expect(result.items[0].binary?.data.mimeType).toBe('image/png');
	});

	it('rejects an image URL that is not http(s) and a non-image binary field', async () => {
		const badUrl = await run({
			operation: 'remix',
			prompt: 'x',
			imageSource: 'url',
			imageUrl: 'ftp://host/a.png',
		});
		expect(badUrl.error?.message).toBe('Reference Image URL must be an http:// or https:// URL');

		const text = {
			json: {},
			binary: { data: { data: Buffer.from('hi').toString('base64'), mimeType: 'text/plain' } },
		};
		const notImage = await run(
			{
				operation: 'replaceBackground',
				prompt: 'x',
				imageSource: 'binary',
				imageBinaryField: 'data',
			},
			{ input: [text] },
		);
		expect(notImage.error?.message).toBe('Binary field "data" of input item 0 is not an image');
		expect(sim.requests).toHaveLength(0);
	});
});

describe('HTTP failures', () => {
	it('401: says to check the API key, and the key appears in no error and no log', async () => {
		const result = await runNode({
			nodeType: new MediaGatewayImage({ retryPolicy }),
			credentialTypes: [new MediaGatewayApi()],
			credentials: { mediaGatewayApi: { apiKey: 'sk-wrong-key-987654321', baseUrl: sim.url } },
			parameters: { operation: 'generate', prompt: 'x' },
		});
		expect(result.error?.message).toBe('The gateway rejected the API key (HTTP 401)');
		expect(result.error?.description).toMatch(
			/Check the API Key in the Media Gateway API credential/,
		);
		expect(result.error?.httpCode).toBe('401');
		const everything = JSON.stringify({ error: result.error, logs: result.logs, run: result.run });
		expect(everything).not.toContain('sk-wrong-key-987654321');
	});

	it('a gateway that echoes the key in its error body gets it redacted', async () => {
		sim.inject({
			path: '/imgmodel/v1/imgmodel-v3/generate',
			status: 500,
			body: { error: { message: `bad key ${API_KEY} (Bearer ${API_KEY})` } },
		});
		const result = await run({ operation: 'generate', prompt: 'x' });
		expect(result.error?.message).toBe(
			'The gateway failed to process POST /imgmodel/v1/imgmodel-v3/generate (HTTP 500)',
		);
		expect(result.error?.description).toMatch(/Gateway said: bad key \*\*\*/);
		expect(JSON.stringify(result.run)).not.toContain(API_KEY);
		expect(JSON.stringify(result.logs)).not.toContain(API_KEY);
	});

	it('429 with Retry-After is waited out and recovered', async () => {
		sim.inject({ path: '/imgmodel/v1/imgmodel-v3/generate', status: 429, retryAfter: 1, times: 2 });
		const started = Date.now();
		const result = await run({ operation: 'generate', prompt: 'x', options: { download: false } });
		expect(result.error).toBeUndefined();
		expect(posts('/imgmodel/v1/imgmodel-v3/generate')).toHaveLength(3);
		expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
	});

	it('429 that outlasts the retries says the gateway is rate limiting', async () => {
		sim.inject({ path: '/imgmodel/v1/imgmodel-v3/generate', status: 429, times: 10 });
		const result = await run({ operation: 'generate', prompt: 'x' });
		expect(result.error?.message).toBe('The gateway is rate limiting requests (HTTP 429)');
		expect(result.error?.description).toMatch(/Lower the Concurrency option/);
		expect(posts('/imgmodel/v1/imgmodel-v3/generate')).toHaveLength(retryPolicy.maxAttempts);
	});

	it('a Retry-After beyond the cap fails at once instead of holding the execution', async () => {
		sim.inject({ path: '/imgmodel/v1/imgmodel-v3/generate', status: 429, retryAfter: 3600 });
		const result = await run({ operation: 'generate', prompt: 'x' });
		expect(result.error?.description).toMatch(/asks to wait 3600 s/);
		expect(posts('/imgmodel/v1/imgmodel-v3/generate')).toHaveLength(1);
	});

	it('503 is retried; 500 on a POST is reported with the gateway message and not repeated', async () => {
		sim.inject({ path: '/imgmodel/v1/imgmodel-v3/generate', status: 503 });
		const retried = await run({ operation: 'generate', prompt: 'x', options: { download: false } });
		expect(retried.error).toBeUndefined();
		expect(posts('/imgmodel/v1/imgmodel-v3/generate')).toHaveLength(2);

		sim.reset();
		sim.inject({
			path: '/imgmodel/v1/imgmodel-v3/generate',
			status: 500,
			body: { error: { message: 'model overloaded' } },
		});
		const failed = await run({ operation: 'generate', prompt: 'x' });
		expect(failed.error?.description).toMatch(
			/Gateway said: model overloaded.*not repeated automatically/,
		);
		expect(posts('/imgmodel/v1/imgmodel-v3/generate')).toHaveLength(1);
	});

	it('a connection dropped after sending a POST is not retried', async () => {
		sim.inject({ path: '/imgmodel/v1/imgmodel-v3/generate', closeConnection: true });
		const result = await run({ operation: 'generate', prompt: 'x' });
		expect(result.error?.message).toBe(
			'The connection to the gateway failed during POST /imgmodel/v1/imgmodel-v3/generate',
		);
		expect(result.error?.description).toMatch(/not repeated automatically/);
		expect(posts('/imgmodel/v1/imgmodel-v3/generate')).toHaveLength(1);
	});

	it('a refused connection (nothing sent) is retried, then reported with the Base URL to check', async () => {
		const result = await runNode({
			nodeType: new MediaGatewayImage({ retryPolicy }),
			credentialTypes: [new MediaGatewayApi()],
			credentials: { mediaGatewayApi: { apiKey: API_KEY, baseUrl: 'http://127.0.0.1:9' } },
			parameters: { operation: 'generate', prompt: 'x' },
		});
		expect(result.error?.message).toBe('Could not reach the gateway at 127.0.0.1:9');
		expect(result.error?.description).toMatch(
			/Nothing was sent \(ECONNREFUSED\)\. Check the Base URL/,
		);
	});

	it('404 points at the Base URL', async () => {
		const result = await runNode({
			nodeType: new MediaGatewayImage({ retryPolicy }),
			credentialTypes: [new MediaGatewayApi()],
			credentials: { mediaGatewayApi: { apiKey: API_KEY, baseUrl: `${sim.url}/v1` } },
			parameters: { operation: 'generate', prompt: 'x' },
		});
		expect(result.error?.message).toMatch(/HTTP 404/);
		expect(result.error?.description).toMatch(/Check the Base URL/);
	});

	it('a Base URL without http(s) is named before any request', async () => {
		const result = await runNode({
			nodeType: new MediaGatewayImage({ retryPolicy }),
			credentialTypes: [new MediaGatewayApi()],
			credentials: { mediaGatewayApi: { apiKey: API_KEY, baseUrl: 'gateway.example.com' } },
			parameters: { operation: 'generate', prompt: 'x' },
		});
		expect(result.error?.message).toBe(
			'The Base URL in the Media Gateway API credential must start with http:// or https://',
		);
	});
});

describe('Items: order, pairedItem, concurrency, Continue On Fail', () => {
	const prompts = Array.from({ length: 12 }, (_, index) => ({ json: { p: `picture ${index}` } }));

	it('keeps output order and pairedItem under concurrency, with at most Concurrency requests in flight', async () => {
		sim.setLatency(120);
		const result = await run(
			{
				operation: 'generate',
				prompt: '={{ $json.p }}',
				options: { download: false, concurrency: 4 },
			},
			{ input: prompts },
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.prompt)).toEqual(
			prompts.map((item) => item.json.p),
		);
		expect(result.items.map((item) => item.pairedItem)).toEqual(
			prompts.map((_, index) => ({ item: index })),
		);

		// Arrival times of the requests: with 120 ms latency and 4 slots they come in waves of 4.
		const arrivals = posts('/imgmodel/v1/imgmodel-v3/generate')
			.map((request) => request.at)
			.sort((a, b) => a - b);
		const first = arrivals[0];
		const waves = arrivals.map((at) => Math.floor((at - first) / 100));
		for (const wave of new Set(waves)) {
			expect(waves.filter((value) => value === wave).length).toBeLessThanOrEqual(4);
		}
	});

	it('Concurrency 1 sends one request at a time', async () => {
		sim.setLatency(60);
		await run(
			{
				operation: 'generate',
				prompt: '={{ $json.p }}',
				options: { download: false, concurrency: 1 },
			},
			{ input: prompts.slice(0, 4) },
		);
		const arrivals = posts('/imgmodel/v1/imgmodel-v3/generate').map((request) => request.at);
		for (let index = 1; index < arrivals.length; index++) {
			expect(arrivals[index] - arrivals[index - 1]).toBeGreaterThanOrEqual(55);
		}
	});

	it('Continue On Fail: a failing item becomes an error item, the others succeed, order kept', async () => {
		const input = [{ json: { p: 'one' } }, { json: { p: '' } }, { json: { p: 'three' } }];
		const result = await run(
			{ operation: 'generate', prompt: '={{ $json.p }}', options: { download: false } },
			{ input, continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
		expect(result.items[0].json.prompt).toBe('one');
		expect(result.items[1].json.error).toBe(
			'Prompt (prompt) is required: enter a description of the image',
		);
		expect(result.items[1].pairedItem).toEqual({ item: 1 });
		expect(result.items[2].json.prompt).toBe('three');
	});

	it('without Continue On Fail the node stops with the failing item named', async () => {
		sim.inject({
			path: '/imgmodel/v1/imgmodel-v3/generate',
			status: 400,
			body: { error: { message: 'prompt: unsafe' } },
		});
		const result = await run(
			{
				operation: 'generate',
				prompt: '={{ $json.p }}',
				options: { download: false, concurrency: 1 },
			},
			{ input: prompts.slice(0, 3) },
		);
		expect(result.error?.message).toBe(
			'The gateway rejected the request POST /imgmodel/v1/imgmodel-v3/generate (HTTP 400)',
		);
		expect(result.error?.description).toMatch(/Gateway said: prompt: unsafe/);
		expect(result.error?.itemIndex).toBe(0);
		expect(posts('/imgmodel/v1/imgmodel-v3/generate')).toHaveLength(1);
	});
});
