/**
 * Issue 15 and 16, transport and download side, over real HTTP through n8n-core's real
 * WorkflowExecute and request helpers: a fake gateway on 127.0.0.1 and other origins (127.0.0.2,
 * and another port of 127.0.0.1) standing in for a CDN and an attacker.
 */
import type { INodeParameters } from 'n8n-workflow';

import { MediaGatewayApi } from '../../credentials/MediaGatewayApi.credentials';
import { MediaGatewayImage } from '../../nodes/MediaGatewayImage/MediaGatewayImage.node';
import { MediaGatewayVideo } from '../../nodes/MediaGatewayVideo/MediaGatewayVideo.node';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../nodes/shared/transport/retry';
import { runNode, type RunNodeOptions } from '../../dev/harness/runNode';
import { json, type Origin, redirect, startOrigin } from './origins';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { makePng, mp4Bytes } = require('../../dev/simulator');

const API_KEY = 'mgw-transport-key-5c1e9a77d0b2';
const PNG: Buffer = (makePng as (w: number, h: number, pixel: () => number[]) => Buffer)(
	2,
	2,
	() => [0, 128, 255, 255],
);
const MP4: Buffer = (mp4Bytes as (total: number) => Buffer)(4096);
const JPEG = Buffer.concat([
	Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]),
	Buffer.from('JFIF\0'),
	Buffer.alloc(200, 7),
]);
const SVG = Buffer.from(
	'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="10" height="10"/></svg>',
);

let gateway: Origin;
let cdn: Origin;
let sidePort: Origin;
/** The retry policy every node of this file is constructed with (short backoff). */
let retryPolicy: { -readonly [K in keyof RetryPolicy]: RetryPolicy[K] } = {
	...DEFAULT_RETRY_POLICY,
};

beforeAll(async () => {
	[gateway, cdn, sidePort] = await Promise.all([
		startOrigin('127.0.0.1'),
		startOrigin('127.0.0.2'),
		startOrigin('127.0.0.1'),
	]);
});
afterAll(async () => {
	await Promise.all([gateway.close(), cdn.close(), sidePort.close()]);
});
beforeEach(() => {
	gateway.reset();
	cdn.reset();
	sidePort.reset();
	retryPolicy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 20, maxDelayMs: 50 };
});
afterEach(() => {
	retryPolicy = { ...DEFAULT_RETRY_POLICY };
});

const GENERATE = '/imgmodel/v1/imgmodel-v3/generate';

async function runImage(parameters: INodeParameters, extra: Partial<RunNodeOptions> = {}) {
	return await runNode({
		nodeType: new MediaGatewayImage({ retryPolicy }),
		credentialTypes: [new MediaGatewayApi()],
		credentials: { mediaGatewayApi: { apiKey: API_KEY, baseUrl: `${gateway.url}/` } },
		parameters: { operation: 'generate', prompt: 'a lighthouse', ...parameters },
		...extra,
	});
}

async function runVideo(parameters: INodeParameters, extra: Partial<RunNodeOptions> = {}) {
	return await runNode({
		nodeType: new MediaGatewayVideo({ retryPolicy }),
		credentialTypes: [new MediaGatewayApi()],
		credentials: { mediaGatewayApi: { apiKey: API_KEY, baseUrl: gateway.url } },
		parameters,
		...extra,
	});
}

/** The gateway answers Generate with one image at `url`. */
function generateAnswers(url: string): void {
	gateway.route(GENERATE, (_req, res) =>
		json(res, 200, {
			created: 1700000000,
			data: [{ url, prompt: 'a lighthouse', resolution: '2x2', is_image_safe: true, seed: 7 }],
		}),
	);
}

function serveFile(
	origin: Origin,
	path: string,
	bytes: Buffer,
	contentType: string,
	requireNoAuth = false,
): void {
	origin.route(path, (req, res) => {
		// Like a signed CDN URL: a request carrying any Authorization header is refused.
		if (requireNoAuth && req.headers.authorization)
			return json(res, 403, { error: 'unexpected Authorization' });
		res
			.writeHead(200, { 'content-type': contentType, 'content-length': String(bytes.length) })
			.end(bytes);
	});
}

const sawKey = (origin: Origin) =>
	origin.requests.filter((request) => request.authorization !== undefined);

function everythingText(value: unknown): string {
	return JSON.stringify(value);
}

describe('the API key goes only to the Base URL origin', () => {
	it('a result file on the gateway that redirects to a CDN is downloaded, and the CDN never sees the key', async () => {
		generateAnswers(`${gateway.url}/files/1.png`);
		gateway.route('/files/1.png', (_req, res) => redirect(res, `${cdn.url}/signed/1.png?sig=abc`));
		serveFile(cdn, '/signed/1.png', PNG, 'image/png', true);

		const result = await runImage({});
		expect(result.error).toBeUndefined();
		expect((await result.binaryBuffer(result.items[0], 'data')).equals(PNG)).toBe(true);
		// The gateway got the key for its API call and for its own file; the CDN got nothing.
		expect(gateway.requests.map((request) => request.authorization)).toEqual([
			`Bearer ${API_KEY}`,
			`Bearer ${API_KEY}`,
		]);
		expect(cdn.requests).toHaveLength(1);
		expect(sawKey(cdn)).toEqual([]);
	});

	it('through many hops (gateway → CDN → gateway → other port → CDN) only gateway hops carry the key', async () => {
		generateAnswers(`${gateway.url}/files/a.png`);
		gateway.route('/files/a.png', (_req, res) => redirect(res, `${cdn.url}/hop1`, 301));
		cdn.route('/hop1', (_req, res) => redirect(res, `${gateway.url}/files/b.png`, 307));
		gateway.route('/files/b.png', (_req, res) => redirect(res, `${sidePort.url}/hop3`, 308));
		sidePort.route('/hop3', (_req, res) => redirect(res, `${cdn.url}/final.png`, 303));
		serveFile(cdn, '/final.png', PNG, 'image/png', true);

		const result = await runImage({});
		expect(result.error).toBeUndefined();
		expect(result.items[0].binary?.data.mimeType).toBe('image/png');
		expect(gateway.requests.map((request) => request.path)).toEqual([
			GENERATE,
			'/files/a.png',
			'/files/b.png',
		]);
		expect(gateway.requests.every((request) => request.authorization === `Bearer ${API_KEY}`)).toBe(
			true,
		);
		expect(cdn.requests.map((request) => request.path)).toEqual(['/hop1', '/final.png']);
		expect(sawKey(cdn)).toEqual([]);
		// Same host, another port: another origin, so no key either.
		expect(sidePort.requests).toHaveLength(1);
		expect(sawKey(sidePort)).toEqual([]);
	});

	it('a result URL on another origin is fetched without the key', async () => {
		generateAnswers(`${cdn.url}/direct.png`);
		serveFile(cdn, '/direct.png', PNG, 'image/png', true);
		const result = await runImage({});
		expect(result.error).toBeUndefined();
		expect(sawKey(cdn)).toEqual([]);
	});

	it('an API call redirected to another origin is refused: the other origin gets no request at all', async () => {
		gateway.route(GENERATE, (_req, res) => redirect(res, `${cdn.url}${GENERATE}`, 307));
		const result = await runImage({});
		expect(result.error?.message).toBe(
			`The gateway redirected POST ${GENERATE} to another address (${cdn.url})`,
		);
		expect(result.error?.description).toContain(`only ever sent to the Base URL (${gateway.url})`);
		expect(cdn.requests).toEqual([]);
		// Not retried either: a redirect is an answer, not a failure.
		expect(gateway.requests).toHaveLength(1);
	});

	it('a task read redirected to the same host on another port is refused too', async () => {
		gateway.route('/v1/videos/task-1', (_req, res) =>
			redirect(res, `${sidePort.url}/v1/videos/task-1`),
		);
		const result = await runVideo({ operation: 'get', taskId: 'task-1' });
		expect(result.error?.message).toBe(
			`The gateway redirected GET /v1/videos/task-1 to another address (${sidePort.url})`,
		);
		expect(sidePort.requests).toEqual([]);
	});

	it('a same-origin API redirect is followed, with the key', async () => {
		gateway.route('/v1/videos/task-2', (_req, res) => redirect(res, '/v2/videos/task-2', 308));
		gateway.route('/v2/videos/task-2', (_req, res) =>
			json(res, 200, { id: 'task-2', status: 'processing' }),
		);
		const result = await runVideo({ operation: 'get', taskId: 'task-2' });
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ taskId: 'task-2', state: 'running' });
		expect(gateway.requests.map((request) => request.authorization)).toEqual([
			`Bearer ${API_KEY}`,
			`Bearer ${API_KEY}`,
		]);
	});

	it('a POST answered with 302 is not turned into a GET', async () => {
		gateway.route(GENERATE, (_req, res) => redirect(res, '/elsewhere', 302));
		const result = await runImage({});
		expect(result.error?.message).toBe(`The gateway redirected POST ${GENERATE} (HTTP 302)`);
		expect(gateway.requests.map((request) => request.path)).toEqual([GENERATE]);
	});

	it('a redirect loop stops after 5 redirects with an error naming the host', async () => {
		generateAnswers(`${cdn.url}/loop`);
		cdn.route('/loop', (_req, res) => redirect(res, `${cdn.url}/loop`));
		const result = await runImage({});
		expect(result.error?.message).toBe(`GET ${cdn.url.slice(7)}/loop redirected more than 5 times`);
		expect(cdn.requests).toHaveLength(6);
	});
});

describe('download limits', () => {
	it('stops a download at the size limit (no Content-Length) and names the host and the limit', async () => {
		const total = 64 * 1024 * 1024;
		generateAnswers(`${cdn.url}/big.png`);
		let written = 0;
		let hungUp!: () => void;
		const clientHungUp = new Promise<void>((resolve) => (hungUp = resolve));
		cdn.route('/big.png', async (_req, res) => {
			res.on('close', () => {
				if (!res.writableFinished) hungUp();
			});
			res.writeHead(200, { 'content-type': 'image/png' });
			res.write(PNG.subarray(0, 16));
			const chunk = Buffer.alloc(64 * 1024);
			// Writes until the client hangs up or the whole file is out.
			while (written < total && !res.destroyed) {
				written += chunk.length;
				if (!res.write(chunk)) {
					await new Promise<void>((resolve) => {
						const done = () => {
							res.off('drain', done);
							res.off('close', done);
							resolve();
						};
						res.on('drain', done);
						res.on('close', done);
					});
				}
			}
			res.end();
		});
		const result = await runImage({ options: { maxDownloadSizeMb: 1 } });
		expect(result.error?.message).toBe(
			`The file at ${cdn.url.slice(7)} is larger than the download limit of 1 MB`,
		);
		expect(result.error?.description).toMatch(/The download was stopped at 1(\.\d)? MiB/);
		expect(result.error?.description).toContain('Max Download Size (MB)');
		// The node hung up: the server could not send the rest (loopback buffers hold a few MB at most).
		await clientHungUp;
		expect(written).toBeLessThan(total / 4);
	});

	it('refuses at once a file whose Content-Length is over the limit', async () => {
		generateAnswers(`${cdn.url}/announced.png`);
		cdn.route('/announced.png', (_req, res) => {
			res.writeHead(200, {
				'content-type': 'image/png',
				'content-length': String(5 * 1024 * 1024),
			});
			res.write(PNG.subarray(0, 16));
			// Never sends the rest: the node must not wait for it.
		});
		const result = await runImage({ options: { maxDownloadSizeMb: 2 } });
		expect(result.error?.message).toBe(
			`The file at ${cdn.url.slice(7)} is larger than the download limit of 2 MB`,
		);
		expect(result.error?.description).toContain('before it started');
	});

	it('stops a download that trickles past the time limit', async () => {
		generateAnswers(`${cdn.url}/slow.png`);
		cdn.route('/slow.png', async (_req, res) => {
			res.writeHead(200, { 'content-type': 'image/png' });
			res.write(PNG.subarray(0, 16));
			// One byte at a time, never idle long enough for an idle timeout, never finishing.
			while (!res.destroyed) {
				res.write(Buffer.alloc(1));
				await new Promise((resolve) => setTimeout(resolve, 20));
			}
		});
		const started = Date.now();
		const result = await runImage({ options: { downloadTimeLimitSeconds: 1 } });
		expect(result.error?.message).toBe(
			`The download from ${cdn.url.slice(7)} did not finish within the download time limit of 1 s`,
		);
		expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
		expect(cdn.abortedResponses).toBe(1);
	});

	it('refuses a size or time limit that is not a positive number, naming the option', async () => {
		generateAnswers(`${cdn.url}/x.png`);
		const result = await runImage({ options: { maxDownloadSizeMb: 0 } });
		expect(result.error?.message).toBe('Max Download Size (MB) must be a number greater than 0');
	});
});

describe('downloaded files are what the operation produces', () => {
	it('refuses an SVG served as image/svg+xml for an image operation, and stores nothing', async () => {
		generateAnswers(`${cdn.url}/picture.svg`);
		serveFile(cdn, '/picture.svg', SVG, 'image/svg+xml');
		const result = await runImage({});
		expect(result.error?.message).toBe(
			`The file at ${cdn.url.slice(7)} is not an image (an SVG document)`,
		);
		expect(result.error?.description).toContain('the server said "image/svg+xml"');
		expect(result.items).toEqual([]);
	});

	it('refuses an HTML page that claims to be image/png', async () => {
		generateAnswers(`${cdn.url}/fake.png`);
		serveFile(
			cdn,
			'/fake.png',
			Buffer.from('<!DOCTYPE html><html><body>login</body></html>'),
			'image/png',
		);
		const result = await runImage({});
		expect(result.error?.message).toBe(
			`The file at ${cdn.url.slice(7)} is not an image (an HTML page)`,
		);
	});

	it('refuses a video file as the result of an image operation', async () => {
		generateAnswers(`${cdn.url}/clip.png`);
		serveFile(cdn, '/clip.png', MP4, 'image/png');
		const result = await runImage({});
		expect(result.error?.message).toBe(
			`The file at ${cdn.url.slice(7)} is not an image (video/mp4)`,
		);
	});

	it('stores what the bytes are (a JPEG sent as octet-stream) under a sanitised file name with the right extension', async () => {
		const path = '/files/..%2F..%2Fetc%2F.hidden%20name%3Cscript%3E.html';
		generateAnswers(`${cdn.url}${path}`);
		cdn.route('/files/..%2F..%2Fetc%2F.hidden%20name%3Cscript%3E.html', (_req, res) => {
			res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(JPEG);
		});
		const result = await runImage({});
		expect(result.error).toBeUndefined();
		const binary = result.items[0].binary!.data;
		expect(binary.mimeType).toBe('image/jpeg');
		expect(binary.fileName).toBe('etc_.hidden_name_script.jpg');
		expect((await result.binaryBuffer(result.items[0], 'data')).equals(JPEG)).toBe(true);
	});

	it('names a file without a usable name after the result, with the real extension', async () => {
		generateAnswers(`${cdn.url}/`);
		serveFile(cdn, '/', PNG, 'image/png');
		const result = await runImage({});
		expect(result.items[0].binary?.data.fileName).toBe('image-7.png');
	});
});

describe('answers that are not JSON objects', () => {
	it('an HTML page behind a 200 is an error naming the Base URL, not one item per character', async () => {
		gateway.route(GENERATE, (_req, res) => {
			res
				.writeHead(200, { 'content-type': 'text/html' })
				.end('<html><body>Please sign in</body></html>');
		});
		const result = await runImage({}, { continueOnFail: true });
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json.error).toBe(
			`The gateway at ${gateway.url} answered POST ${GENERATE} with something that is not JSON (text/html)`,
		);
		expect(String(result.items[0].json.description)).toContain('Check the Base URL');
		expect(Object.keys(result.items[0].json)).not.toContain('0');
	});

	it('Wait for Task stops at the first answer it cannot read instead of polling until the timeout', async () => {
		gateway.route('/v1/videos/t-html', (_req, res) => {
			res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
		});
		const result = await runVideo({
			operation: 'wait',
			taskId: 't-html',
			pollIntervalSeconds: 0.1,
			waitTimeoutMinutes: 15,
		});
		expect(result.error?.message).toBe(
			`The gateway at ${gateway.url} answered GET /v1/videos/t-html with something that is not JSON (text/html)`,
		);
		expect(gateway.requests).toHaveLength(1);
	});

	it('JSON that is not an object (an array, a string) is refused as well', async () => {
		gateway.route(GENERATE, (_req, res) => json(res, 200, 'ok'));
		const result = await runImage({});
		expect(result.error?.message).toBe(
			`The gateway at ${gateway.url} answered POST ${GENERATE} with JSON that is not an object`,
		);
	});

	it('an answer larger than 4 MiB is cut off and refused', async () => {
		gateway.route('/v1/videos/huge', (_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.write('{"id":"huge","padding":"');
			const chunk = 'x'.repeat(64 * 1024);
			const pump = () => {
				while (!res.destroyed) if (!res.write(chunk)) return void res.once('drain', pump);
			};
			pump();
		});
		const result = await runVideo({ operation: 'get', taskId: 'huge' });
		expect(result.error?.message).toBe(
			`The gateway at ${gateway.url} sent an answer larger than 4 MiB to GET /v1/videos/huge`,
		);
	});
});

describe('task ids and echoed secrets', () => {
	it.each(['.', '..', '...'])('refuses the task id "%s" before any request', async (taskId) => {
		const result = await runVideo({ operation: 'get', taskId });
		expect(result.error?.message).toBe(`Task ID "${taskId}" is not a task id`);
		expect(gateway.requests).toEqual([]);
	});

	it('sends an encoded dot segment as an ordinary id (it cannot climb the path)', async () => {
		gateway.route('/v1/videos/%252e%252e', (_req, res) =>
			json(res, 404, { error: { message: 'no such task' } }),
		);
		const result = await runVideo({ operation: 'get', taskId: '%2e%2e' });
		expect(result.error?.httpCode).toBe('404');
		expect(gateway.requests.map((request) => request.path)).toEqual(['/v1/videos/%252e%252e']);
	});

	it('a created task echoing notifyHook, a resume URL and the key puts none of them into the output', async () => {
		const resumeUrl = 'https://n8n.example.com/webhook-waiting/42?signature=s3cr3t-signature-value';
		gateway.route('/v1/videos', (_req, res, body) => {
			const sent = JSON.parse(body) as { notifyHook?: string };
			json(res, 200, {
				id: 'vid-echo',
				status: 'NOT_START',
				notifyHook: sent.notifyHook,
				meta: {
					notify_hook: resumeUrl,
					note: `resume at ${resumeUrl}`,
					auth: `Authorization: Bearer ${API_KEY}`,
					raw: API_KEY,
				},
			});
		});
		const callbackUrl = 'https://n8n.example.com/webhook/abc/media-gateway';
		const result = await runVideo({
			operation: 'create',
			model: 'vidmodel',
			prompt: 'a paper boat',
			size: '720x1280',
			duration: 5,
			callbackUrl,
			completion: 'returnTask',
		});
		expect(result.error).toBeUndefined();
		expect(JSON.parse(gateway.requests[0].body).notifyHook).toBe(callbackUrl);
		const output = everythingText(result.items);
		expect(output).not.toContain(callbackUrl);
		expect(output).not.toContain('s3cr3t-signature-value');
		expect(output).not.toContain(API_KEY);
		expect(result.items[0].json).toMatchObject({
			taskId: 'vid-echo',
			meta: { note: expect.stringContaining('signature=***') },
		});
		expect(result.items[0].json).not.toHaveProperty('notifyHook');
	});
});

describe('Retry-After over HTTP', () => {
	it('a Retry-After of -1 does not make the retry fire at once: the backoff applies', async () => {
		retryPolicy.baseDelayMs = 400;
		retryPolicy.maxDelayMs = 400;
		const times: number[] = [];
		gateway.route(GENERATE, (_req, res) => {
			times.push(Date.now());
			if (times.length === 1)
				return json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '-1' });
			json(res, 200, { created: 1, data: [{ url: `${cdn.url}/ok.png`, seed: 1 }] });
		});
		serveFile(cdn, '/ok.png', PNG, 'image/png');
		const result = await runImage({});
		expect(result.error).toBeUndefined();
		// Backoff with jitter waits at least half its ceiling; "-1" read as a date would wait 0.
		expect(times[1] - times[0]).toBeGreaterThanOrEqual(200);
	});

	it('a Retry-After longer than the node waits fails at once, saying how long the gateway asked for', async () => {
		gateway.route(GENERATE, (_req, res) => json(res, 429, {}, { 'retry-after': '3600' }));
		const result = await runImage({});
		expect(result.error?.message).toBe('The gateway is rate limiting requests (HTTP 429)');
		expect(result.error?.description).toContain(
			'The gateway asks to wait 3600 s, longer than this node waits (30 s)',
		);
		expect(gateway.requests).toHaveLength(1);
	});
});

describe('a failing item never hides the tasks other items created', () => {
	function videoGateway(rateLimited: string) {
		let next = 0;
		gateway.route('/v1/videos', (_req, res) =>
			json(res, 200, { id: `task-${next++}`, status: 'NOT_START' }),
		);
		for (const id of ['task-0', 'task-1', 'task-2']) {
			gateway.route(`/v1/videos/${id}`, (_req, res) =>
				id === rateLimited
					? json(res, 429, { error: { message: 'too many' } }, { 'retry-after': '3600' })
					: json(res, 200, { id, status: 'processing' }),
			);
		}
	}
	const create = {
		operation: 'create',
		model: 'vidmodel',
		prompt: '={{ $json.prompt }}',
		size: '720x1280',
		duration: 5,
		completion: 'poll',
		pollIntervalSeconds: 0.1,
		waitTimeoutMinutes: 5,
	};
	const input = [
		{ json: { prompt: 'one' } },
		{ json: { prompt: 'two' } },
		{ json: { prompt: 'three' } },
	];

	it('without Continue On Fail, one 429 with a long Retry-After while polling: the error names all three created tasks', async () => {
		videoGateway('task-1');
		const result = await runVideo(create, { input });
		expect(result.error?.message).toBe('The gateway is rate limiting requests (HTTP 429)');
		const description = String(result.error?.description);
		expect(description).toContain(
			'Tasks this node already created on the gateway keep running there and may be billed',
		);
		for (const id of ['task-0', 'task-1', 'task-2']) expect(description).toContain(id);
		expect(description).toMatch(/item 0: task-\d; item 1: task-\d; item 2: task-\d/);
	});

	it('under Continue On Fail, the failed item carries its task id and the others go on', async () => {
		let next = 0;
		gateway.route('/v1/videos', (_req, res) =>
			json(res, 200, { id: `task-${next++}`, status: 'NOT_START' }),
		);
		gateway.route('/v1/videos/task-0', (_req, res) =>
			json(res, 200, { id: 'task-0', status: 'completed', video: { url: 'x' } }),
		);
		gateway.route('/v1/videos/task-1', (_req, res) =>
			json(res, 429, {}, { 'retry-after': '3600' }),
		);
		gateway.route('/v1/videos/task-2', (_req, res) =>
			json(res, 200, { id: 'task-2', status: 'completed', video: { url: 'y' } }),
		);
		const result = await runVideo(
			{ ...create, options: { concurrency: 1 } },
			{ input, continueOnFail: true },
		);
		expect(result.items).toHaveLength(3);
		expect(result.items[0].json).toMatchObject({ taskId: 'task-0', state: 'succeeded' });
		expect(result.items[1].json).toMatchObject({
			taskId: 'task-1',
			error: 'The gateway is rate limiting requests (HTTP 429)',
		});
		expect(result.items[2].json).toMatchObject({ taskId: 'task-2', state: 'succeeded' });
	});
});

describe('the gateway key never leaks into errors', () => {
	it('an error body echoing the Authorization header is redacted', async () => {
		gateway.route(GENERATE, (req, res) =>
			json(res, 500, { error: { message: `bad header ${String(req.headers.authorization)}` } }),
		);
		const result = await runImage({});
		expect(result.error?.description).toContain('Bearer ***');
		expect(everythingText(result.error?.raw)).not.toContain(API_KEY);
	});
});

describe('video downloads', () => {
	it('Wait for Task downloads a finished video the gateway hands to a CDN, without the key reaching the CDN', async () => {
		gateway.route('/v1/videos/v-1', (_req, res) =>
			json(res, 200, {
				id: 'v-1',
				status: 'completed',
				video: { url: `${gateway.url}/files/v-1.mp4`, duration: 5 },
			}),
		);
		gateway.route('/files/v-1.mp4', (_req, res) =>
			redirect(res, `${cdn.url}/signed/v-1.mp4?token=t`),
		);
		serveFile(cdn, '/signed/v-1.mp4', MP4, 'video/mp4', true);
		const result = await runVideo({
			operation: 'wait',
			taskId: 'v-1',
			pollIntervalSeconds: 0.1,
			options: { download: true },
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].binary?.data).toMatchObject({
			mimeType: 'video/mp4',
			fileName: 'v-1.mp4',
		});
		expect((await result.binaryBuffer(result.items[0], 'data')).equals(MP4)).toBe(true);
		expect(sawKey(cdn)).toEqual([]);
	});

	it('refuses a PNG delivered as the result of a video operation', async () => {
		gateway.route('/v1/videos/v-2', (_req, res) =>
			json(res, 200, { id: 'v-2', status: 'completed', video: { url: `${cdn.url}/v-2.mp4` } }),
		);
		serveFile(cdn, '/v-2.mp4', PNG, 'video/mp4');
		const result = await runVideo({
			operation: 'wait',
			taskId: 'v-2',
			pollIntervalSeconds: 0.1,
			options: { download: true },
		});
		expect(result.error?.message).toBe(
			`The file at ${cdn.url.slice(7)} is not a video (image/png)`,
		);
	});

	it('stops a video download at its size limit', async () => {
		gateway.route('/v1/videos/v-3', (_req, res) =>
			json(res, 200, { id: 'v-3', status: 'completed', video: { url: `${cdn.url}/v-3.mp4` } }),
		);
		const big = (mp4Bytes as (total: number) => Buffer)(3 * 1024 * 1024);
		serveFile(cdn, '/v-3.mp4', big, 'video/mp4');
		const result = await runVideo({
			operation: 'wait',
			taskId: 'v-3',
			pollIntervalSeconds: 0.1,
			options: { download: true, maxDownloadSizeMb: 2 },
		});
		expect(result.error?.message).toBe(
			`The file at ${cdn.url.slice(7)} is larger than the download limit of 2 MB`,
		);
	});
});
