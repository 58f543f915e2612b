'use strict';
/** The simulator over real HTTP: if it drifts from docs/gateway-interface.md, every integration test built on it lies. */
const http = require('node:http');
const zlib = require('node:zlib');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { startSimulator, PNG_SIGNATURE } = require('../../dev/simulator');

const KEY = 'sim-key-test-123';
const IMG = '/imgmodel/v1/imgmodel-v3';
const PNG_B64 =
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

let sim;

beforeAll(async () => {
	// Retries come fast (time scale 0.01), but the answer limit stays the gateway's 5 s: at 0.01 it would be 50 ms,
	// which a receiver on a busy machine misses, turning an answered callback into a timeout and a retry.
	sim = await startSimulator({
		apiKey: KEY,
		videoCompleteAfterMs: 150,
		callbackTimeScale: 0.01,
		callbackAnswerLimitMs: 5000,
	});
});
afterEach(() => sim.reset());
afterAll(() => sim.close());

async function api(
	pathname,
	body,
	{ method = body === undefined ? 'GET' : 'POST', key = KEY, headers = {} } = {},
) {
	const h = { ...headers };
	if (key !== null) h.authorization = `Bearer ${key}`;
	if (body !== undefined && h['content-type'] === undefined) h['content-type'] = 'application/json';
	const res = await fetch(sim.url + pathname, {
		method,
		headers: h,
		body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
	});
	const text = await res.text();
	let json;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: res.status, headers: res.headers, json, text };
}

const delay = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls for an event; the deadline is generous because a busy machine is slow, not wrong. */
async function waitFor(fn, what, timeoutMs = 60000) {
	const end = Date.now() + timeoutMs;
	for (;;) {
		const v = await fn();
		if (v) return v;
		if (Date.now() > end) throw new Error(`waited ${timeoutMs} ms for ${what}; it did not happen`);
		await delay(20);
	}
}

/** Checks chunk CRCs and that IDAT inflates to width x height RGBA scanlines: a real, decodable PNG. */
function assertValidPng(buf) {
	expect(buf.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
	let off = 8;
	let width = 0;
	let height = 0;
	const idat = [];
	const types = [];
	while (off < buf.length) {
		const len = buf.readUInt32BE(off);
		const type = buf.toString('ascii', off + 4, off + 8);
		const data = buf.subarray(off + 8, off + 8 + len);
		expect(buf.readUInt32BE(off + 8 + len)).toBe(zlib.crc32(buf.subarray(off + 4, off + 8 + len)));
		if (type === 'IHDR') {
			width = data.readUInt32BE(0);
			height = data.readUInt32BE(4);
		}
		if (type === 'IDAT') idat.push(data);
		types.push(type);
		off += 12 + len;
	}
	expect(types[0]).toBe('IHDR');
	expect(types[types.length - 1]).toBe('IEND');
	expect(zlib.inflateSync(Buffer.concat(idat)).length).toBe((width * 4 + 1) * height);
}

/**
 * A local callback receiver whose answers the test scripts: each entry is {status} (answered at once) or
 * {hold: true} (never answered: held until the sender gives up and closes the connection).
 */
async function startReceiver(script) {
	const received = [];
	let n = 0;
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const step = script[Math.min(n++, script.length - 1)];
			received.push({
				at: Date.now(),
				headers: req.headers,
				body: JSON.parse(Buffer.concat(chunks).toString()),
			});
			if (!step.hold) res.writeHead(step.status).end('ok');
		});
	});
	await new Promise((r) => server.listen(0, '127.0.0.1', r));
	return {
		url: `http://127.0.0.1:${server.address().port}/hook`,
		received,
		close: () =>
			new Promise((r) => {
				server.close(r);
				server.closeAllConnections();
			}),
	};
}

describe('authentication', () => {
	test('missing or wrong bearer key gets 401 without echoing the key; the log redacts it', async () => {
		const none = await api(`${IMG}/generate`, { prompt: 'x' }, { key: null });
		expect(none.status).toBe(401);
		expect(none.json).toEqual({ error: { message: 'Invalid API key' } });
		const wrong = await api(`${IMG}/generate`, { prompt: 'x' }, { key: 'wrong-secret-777' });
		expect(wrong.status).toBe(401);
		expect(wrong.text).not.toContain('wrong-secret-777');
		const basic = await api('/v1/videos/x', undefined, {
			key: null,
			headers: { authorization: `Basic ${KEY}` },
		});
		expect(basic.status).toBe(401);
		expect(sim.requests).toHaveLength(3);
		expect(sim.requests[1].headers.authorization).toBe('Bearer ***');
		expect(JSON.stringify(sim.requests)).not.toContain('wrong-secret-777');
		expect(JSON.stringify(sim.requests)).not.toContain(KEY);
	});
});

describe('image endpoints', () => {
	test('generate returns the documented result shape and a downloadable real PNG', async () => {
		const before = Math.floor(Date.now() / 1000);
		const r = await api(`${IMG}/generate`, {
			prompt: 'a red fox',
			aspect_ratio: 'ASPECT_16_9',
			rendering_speed: 'TURBO',
		});
		expect(r.status).toBe(200);
		expect(r.json.created).toBeGreaterThanOrEqual(before);
		expect(r.json.data).toHaveLength(1);
		const [img] = r.json.data;
		expect(img).toEqual({
			url: `${sim.url}/files/images/${img.seed}.png`,
			prompt: 'a red fox',
			resolution: '1024x1024',
			is_image_safe: true,
			seed: expect.any(Number),
		});
		expect(Number.isInteger(img.seed)).toBe(true);
		const file = await fetch(img.url); // no auth: files behave like a CDN
		expect(file.status).toBe(200);
		expect(file.headers.get('content-type')).toBe('image/png');
		assertValidPng(Buffer.from(await file.arrayBuffer()));
	});

	test('num_images gives several entries and [unsafe] flags them', async () => {
		const r = await api(`${IMG}/generate`, { prompt: 'thing [unsafe]', num_images: 3 });
		expect(r.json.data).toHaveLength(3);
		expect(new Set(r.json.data.map((d) => d.url)).size).toBe(3);
		expect(r.json.data.every((d) => d.is_image_safe === false)).toBe(true);
	});

	test.each([
		[
			'edit',
			{
				prompt: 'add a hat',
				image: 'https://example.com/a.png',
				mask: 'https://example.com/m.png',
				style_type: 'AUTO',
			},
		],
		['edit', { prompt: 'add a hat', image: PNG_B64 }],
		['remix', { prompt: 'in winter', image: `data:image/png;base64,${PNG_B64}`, image_weight: 0 }],
		['remix', { prompt: 'in winter', image: 'http://example.com/a.png', image_weight: 100 }],
		['replace-background', { prompt: 'a beach', image: 'https://example.com/a.png' }],
	])('%s happy path', async (op, body) => {
		const r = await api(`${IMG}/${op}`, body);
		expect(r.status).toBe(200);
		expect(r.json.data[0]).toMatchObject({
			prompt: body.prompt,
			resolution: '1024x1024',
			is_image_safe: true,
		});
		expect(r.json.data[0].url).toMatch(/\/files\/images\/\d+\.png$/);
	});

	test('reframe echoes a WxH resolution and falls back to 1536x1024 otherwise', async () => {
		const a = await api(`${IMG}/reframe`, {
			image: 'https://example.com/a.png',
			resolution: '2048x1024',
		});
		expect(a.status).toBe(200);
		expect(a.json.data[0]).toMatchObject({ resolution: '2048x1024', prompt: '' });
		const b = await api(`${IMG}/reframe`, { image: PNG_B64, resolution: 'RESOLUTION_WIDE' });
		expect(b.json.data[0].resolution).toBe('1536x1024');
	});
});

describe('validation', () => {
	test.each([
		[`${IMG}/generate`, {}, 'prompt: is required'],
		[`${IMG}/generate`, { prompt: 42 }, 'prompt: must be a string'],
		[`${IMG}/generate`, { prompt: 'x', magic_prompt_option: 'MAYBE' }, 'magic_prompt_option:'],
		[`${IMG}/generate`, { prompt: 'x', aspect_ratio: '16:9' }, 'aspect_ratio:'],
		[`${IMG}/generate`, { prompt: 'x', num_images: 5 }, 'num_images:'],
		[`${IMG}/edit`, { prompt: 'x' }, 'image: is required'],
		[`${IMG}/edit`, { prompt: 'x', image: 'not an image!' }, 'image: must be an http(s) URL'],
		[`${IMG}/edit`, { prompt: 'x', image: 'ftp://example.com/a.png' }, 'image:'],
		[`${IMG}/edit`, { prompt: 'x', image: 'data:text/plain;base64,aGVsbG8=' }, 'image:'],
		[`${IMG}/edit`, { prompt: 'x', image: PNG_B64, mask: 'no pe!' }, 'mask:'],
		[
			`${IMG}/remix`,
			{ prompt: 'x', image: PNG_B64, image_weight: 101 },
			'image_weight: must be a number between 0 and 100',
		],
		[`${IMG}/remix`, { prompt: 'x', image: PNG_B64, image_weight: '50' }, 'image_weight:'],
		[`${IMG}/reframe`, { resolution: '1x1' }, 'image: is required'],
		[`${IMG}/replace-background`, { image: PNG_B64 }, 'prompt: is required'],
		['/v1/video/create', { prompt: 'x' }, 'model: is required'],
		[
			'/v1/video/create',
			{ model: 'vidmodel-ultra', prompt: 'x' },
			'model: must be one of vidmodel, vidmodel-pro',
		],
		['/v1/video/create', { model: 'vidmodel' }, 'prompt: is required unless storyboard is given'],
		[
			'/v1/video/create',
			{ model: 'vidmodel', prompt: 'x', aspect_ratio: '16x9' },
			'aspect_ratio: must have the form <w>:<h>',
		],
		[
			'/v1/videos',
			{ model: 'vidmodel', prompt: 'x', size: '1280:720' },
			'size: must have the form <width>x<height>',
		],
		[
			'/v1/videos',
			{ model: 'vidmodel', prompt: 'x', duration: 0 },
			'duration: must be a positive integer',
		],
		[
			'/v1/videos',
			{ model: 'vidmodel', prompt: 'x', duration: 2.5 },
			'duration: must be a positive integer',
		],
		['/v1/videos', { model: 'vidmodel', prompt: 'x', image_url: 'hello there' }, 'image_url:'],
		[
			'/v1/videos',
			{ model: 'vidmodel', prompt: 'x', notifyHook: 'not a url' },
			'notifyHook: must be an http(s) URL',
		],
		['/v1/videos', { model: 'vidmodel', storyboard: [] }, 'storyboard: must be a non-empty array'],
		[
			'/v1/videos',
			{
				model: 'vidmodel',
				storyboard: [
					{ prompt: 'a', duration: 2 },
					{ prompt: '', duration: 2 },
				],
			},
			'storyboard[1].prompt:',
		],
		[
			'/v1/videos',
			{ model: 'vidmodel', storyboard: [{ prompt: 'a' }] },
			'storyboard[0].duration: is required',
		],
		[
			'/v1/videos',
			{ model: 'vidmodel', storyboard: [{ prompt: 'a', duration: -1 }] },
			'storyboard[0].duration: must be a positive integer',
		],
		['/vidmodel/v1/characters', { description: 'tall' }, 'name: is required'],
		['/vidmodel/v1/characters', { name: 'Ada' }, 'description: is required'],
		[
			'/vidmodel/v1/characters',
			{ name: 'Ada', description: 'tall', reference_images: 'https://x/a.png' },
			'reference_images: must be an array of strings',
		],
		[
			'/vidmodel/v1/characters',
			{ name: 'Ada', description: 'tall', reference_images: [1] },
			'reference_images[0]:',
		],
	])('%s %j -> 400 %s', async (p, body, message) => {
		const r = await api(p, body);
		expect(r.status).toBe(400);
		expect(r.json.error.message.startsWith(message)).toBe(true);
	});

	test('content type, JSON, body shape, size, unknown paths and methods', async () => {
		const ct = await api(`${IMG}/generate`, '{"prompt":"x"}', {
			headers: { 'content-type': 'text/plain' },
		});
		expect(ct.status).toBe(415);
		expect(ct.json.error.message).toMatch(/application\/json/);
		expect((await api(`${IMG}/generate`, '{"prompt":', {})).status).toBe(400);
		expect((await api(`${IMG}/generate`, '[1]', {})).json.error.message).toBe(
			'body: must be a JSON object',
		);
		expect(
			(
				await api(
					`${IMG}/generate`,
					{ prompt: 'x' },
					{ headers: { 'content-type': 'application/json; charset=utf-8' } },
				)
			).status,
		).toBe(200);
		const missing = await api('/v2/nothing', undefined);
		expect(missing.status).toBe(404);
		expect(missing.json).toEqual({ error: { message: 'Not found' } });
		const wrongMethod = await api(`${IMG}/generate`, undefined, { method: 'GET' });
		expect(wrongMethod.status).toBe(405);
		expect((await api('/v1/videos/abc', { x: 1 }, { method: 'POST' })).status).toBe(405);
		const big = await api(
			`${IMG}/generate`,
			JSON.stringify({ prompt: 'x', pad: 'a'.repeat(21 * 1024 * 1024) }),
		);
		expect(big.status).toBe(413);
		// The server still answers normally afterwards.
		expect((await api(`${IMG}/generate`, { prompt: 'x' })).status).toBe(200);
	});
});

describe('fault injection and latency', () => {
	test('429 with Retry-After for the next N matching requests, then recovery', async () => {
		sim.inject({
			path: `${IMG}/generate`,
			status: 429,
			times: 2,
			retryAfter: 3,
			body: { error: { message: 'slow down' } },
		});
		const other = await api(`${IMG}/replace-background`, { prompt: 'x', image: PNG_B64 });
		expect(other.status).toBe(200);
		for (let i = 0; i < 2; i++) {
			const r = await api(`${IMG}/generate`, { prompt: 'x' });
			expect(r.status).toBe(429);
			expect(r.headers.get('retry-after')).toBe('3');
			expect(r.json).toEqual({ error: { message: 'slow down' } });
		}
		expect((await api(`${IMG}/generate`, { prompt: 'x' })).status).toBe(200);
	});

	test('RegExp path with method filter, and closeConnection destroys the socket', async () => {
		sim.inject({ path: /^\/v1\/videos\//, method: 'GET', status: 503 });
		expect((await api('/v1/videos', { model: 'vidmodel', prompt: 'x' })).status).toBe(200);
		expect((await api('/v1/videos/vid_x', undefined)).status).toBe(503);
		expect((await api('/v1/videos/vid_x', undefined)).status).toBe(404);

		sim.inject({ path: '/vidmodel/v1/characters', closeConnection: true });
		await expect(api('/vidmodel/v1/characters', { name: 'A', description: 'b' })).rejects.toThrow();
		const ok = await api('/vidmodel/v1/characters', { name: 'A', description: 'b' });
		expect(ok.status).toBe(200);
	});

	test('delayMs and latency slow API answers but not file downloads', async () => {
		sim.inject({ path: `${IMG}/generate`, status: 500, delayMs: 120 });
		let t = Date.now();
		expect((await api(`${IMG}/generate`, { prompt: 'x' })).status).toBe(500);
		expect(Date.now() - t).toBeGreaterThanOrEqual(110);
		sim.setLatency(150);
		t = Date.now();
		const r = await api(`${IMG}/generate`, { prompt: 'x' });
		expect(Date.now() - t).toBeGreaterThanOrEqual(140);
		// Files are not slowed: with a latency no busy machine comes near, an API request is held while a
		// download asked for after it has arrived already (an order of events, not a time limit).
		sim.setLatency(10 * 60_000);
		const held = new AbortController();
		let heldAnswered = false;
		const heldRequest = fetch(`${sim.url}${IMG}/generate`, {
			method: 'POST',
			headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
			body: JSON.stringify({ prompt: 'held' }),
			signal: held.signal,
		}).then(
			() => (heldAnswered = true),
			(e) => (e.name === 'AbortError' ? undefined : (heldAnswered = true)),
		);
		await waitFor(
			() => sim.requests.some((q) => q.body?.prompt === 'held'),
			'the held API request to reach the simulator',
		);
		const file = Buffer.from(await (await fetch(r.json.data[0].url)).arrayBuffer());
		expect(file.subarray(0, 8)).toEqual(PNG_SIGNATURE);
		expect(heldAnswered).toBe(false);
		held.abort();
		await heldRequest;
		expect(heldAnswered).toBe(false);
		sim.setLatency(0);
	});
});

describe('video tasks', () => {
	test('unified create: processing, then completed with the video object and a downloadable file', async () => {
		const c = await api('/v1/video/create', {
			model: 'vidmodel',
			prompt: 'a wave',
			aspect_ratio: '9:16',
		});
		expect(c.status).toBe(200);
		expect(c.json).toEqual({
			id: expect.stringMatching(/^vid_/),
			status: 'processing',
			created_at: expect.any(Number),
		});
		const q1 = await api(`/v1/videos/${c.json.id}`, undefined);
		expect(q1.json).toEqual({ id: c.json.id, status: 'processing' });
		const done = await waitFor(async () => {
			const q = await api(`/v1/videos/${c.json.id}`, undefined);
			return q.json.status === 'completed' && q.json;
		}, `task ${c.json.id} to be completed`);
		expect(done.video).toEqual({
			url: `${sim.url}/files/videos/${c.json.id}.mp4`,
			duration: 5,
			width: 720,
			height: 1280,
		});
		const file = await fetch(done.video.url);
		expect(file.headers.get('content-type')).toBe('video/mp4');
		const bytes = Buffer.from(await file.arrayBuffer());
		expect(bytes.toString('ascii', 4, 8)).toBe('ftyp');
		expect(sim.tasks.get(c.json.id)).toMatchObject({
			model: 'vidmodel',
			prompt: 'a wave',
			aspect_ratio: '9:16',
			status: 'completed',
		});
	});

	test('/v1/videos storyboard keeps scene order and sums durations; size gives the dimensions', async () => {
		const scenes = [
			{ prompt: 'first', duration: 3 },
			{ prompt: 'second', duration: 4 },
		];
		const c = await api('/v1/videos', {
			model: 'vidmodel',
			size: '640x480',
			storyboard: scenes,
			image_url: PNG_B64,
		});
		expect(c.status).toBe(200);
		expect(sim.tasks.get(c.json.id)).toMatchObject({
			storyboard: scenes,
			size: '640x480',
			image_url: PNG_B64,
			endpoint: '/v1/videos',
		});
		const done = await waitFor(
			async () => (await api(`/v1/videos/${c.json.id}`, undefined)).json.video,
			`the video of task ${c.json.id}`,
		);
		expect(done).toMatchObject({ duration: 7, width: 640, height: 480 });
	});

	test('pro tier takes twice as long; [fail] ends failed; unknown id is 404', async () => {
		const std = await api('/v1/videos', { model: 'vidmodel', prompt: 'a', duration: 8 });
		const pro = await api('/v1/videos', { model: 'vidmodel-pro', prompt: 'a' });
		const bad = await api('/v1/videos', { model: 'vidmodel', prompt: 'bad [fail]' });
		const slow = await api('/v1/video/create', { model: 'vidmodel', prompt: 'calm [slow]' });
		const planned = (r) => sim.tasks.get(r.json.id).completeAt - sim.tasks.get(r.json.id).createdAt;
		expect([planned(std), planned(pro), planned(slow)]).toEqual([150, 300, 1500]);
		// Status before completion is covered by the lifecycle test; wall-clock checks here raced on busy machines.
		const stdDone = await waitFor(
			async () => (await api(`/v1/videos/${std.json.id}`, undefined)).json.video,
			`the video of task ${std.json.id}`,
		);
		expect(stdDone.duration).toBe(8);
		expect(stdDone).toMatchObject({ width: 1280, height: 720 });
		// Created after the standard task, so it may finish a moment later: wait for it as well.
		const badDone = await waitFor(async () => {
			const body = (await api(`/v1/videos/${bad.json.id}`, undefined)).json;
			return body.status !== 'processing' && body;
		}, `task ${bad.json.id} to end`);
		expect(badDone).toEqual({
			id: bad.json.id,
			status: 'failed',
			error: { message: 'Content policy violation (simulated)' },
		});
		await waitFor(
			async () => (await api(`/v1/videos/${pro.json.id}`, undefined)).json.status === 'completed',
			`pro task ${pro.json.id} to be completed`,
		);
		const missing = await api('/v1/videos/vid_doesnotexist', undefined);
		expect(missing.status).toBe(404);
		expect(missing.json).toEqual({ error: { message: 'Task not found' } });
	});

	test('?bytes=N serves exactly N bytes, streamed', async () => {
		const n = 3 * 1024 * 1024 + 17;
		const res = await fetch(`${sim.url}/files/videos/vid_any.mp4?bytes=${n}`);
		expect(res.headers.get('content-length')).toBe(String(n));
		let total = 0;
		let chunks = 0;
		for await (const chunk of res.body) {
			total += chunk.length;
			chunks++;
		}
		expect(total).toBe(n);
		expect(chunks).toBeGreaterThan(1);
	});
});

describe('characters', () => {
	test('create returns id, name, description, reference_images, created_at', async () => {
		const r = await api('/vidmodel/v1/characters', {
			name: 'Ada',
			description: 'red coat',
			reference_images: ['https://example.com/1.png'],
		});
		expect(r.status).toBe(200);
		expect(r.json).toEqual({
			id: expect.stringMatching(/^char_/),
			name: 'Ada',
			description: 'red coat',
			reference_images: ['https://example.com/1.png'],
			created_at: expect.any(Number),
		});
	});
});

describe('callbacks', () => {
	// Its own simulator with a time scale of 0.05 (answer limit 250 ms; retries after 0.5, 1.5 and 3 s):
	// at 0.01 the 50 ms answer limit is shorter than a busy CI machine's scheduling hiccups.
	let csim;
	beforeAll(async () => {
		csim = await startSimulator({ apiKey: KEY, callbackTimeScale: 0.05 });
	});
	afterAll(async () => {
		await csim.close();
	});

	test('a 500 is retried after the (scaled) 10 s interval, then 200 stops the retries', async () => {
		const rx = await startReceiver([{ status: 500 }, { status: 200 }]);
		try {
			// The gateway's 5 s answer limit, unscaled: a receiver slowed down by a busy machine is not a timeout.
			const attempts = await csim.sendCallback(
				rx.url,
				{ id: 't1', status: 'succeed' },
				{ answerLimitMs: 5000 },
			);
			expect(attempts.map((a) => a.status)).toEqual([500, 200]);
			expect(attempts.map((a) => a.attempt)).toEqual([1, 2]);
			expect(rx.received).toHaveLength(2);
			expect(rx.received[0].headers['content-type']).toBe('application/json');
			expect(rx.received[1].body).toEqual({ id: 't1', status: 'succeed' });
			expect(rx.received[1].at - rx.received[0].at).toBeGreaterThanOrEqual(490);
			expect(csim.callbackLog).toEqual(attempts);
		} finally {
			await rx.close();
		}
	});

	test('an answer later than the (scaled) 5 s limit is a timeout; 3 retries after 10/30/60 s scaled', async () => {
		// Never answered: every attempt can only end by the sender's own (scaled) limit, however slow the machine.
		const rx = await startReceiver([{ hold: true }]);
		try {
			const attempts = await csim.sendCallback(rx.url, { id: 't2' });
			expect(attempts.map((a) => a.status)).toEqual(['timeout', 'timeout', 'timeout', 'timeout']);
			expect(rx.received).toHaveLength(4);
			expect(attempts.every((a) => a.elapsedMs >= 245)).toBe(true);
			// Between attempt starts: the 250 ms answer limit plus the retry interval (0.5, 1.5, 3 s scaled).
			// Only lower bounds: timers fire late on a busy machine, never early.
			const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i].at);
			expect(gaps[0]).toBeGreaterThanOrEqual(745);
			expect(gaps[1]).toBeGreaterThanOrEqual(1745);
			expect(gaps[2]).toBeGreaterThanOrEqual(3245);
			const once = await csim.sendCallback(rx.url, { id: 't3' }, { retry: false });
			expect(once).toHaveLength(1);
		} finally {
			await rx.close();
		}
	});

	test('video notifyHook gets processing then succeed (and failed with message for [fail])', async () => {
		const rx = await startReceiver([{ status: 200 }]);
		try {
			const ok = await api('/v1/videos', {
				model: 'vidmodel',
				prompt: 'a',
				duration: 6,
				notifyHook: rx.url,
			});
			const bad = await api('/v1/video/create', {
				model: 'vidmodel',
				prompt: '[fail]',
				notifyHook: rx.url,
			});
			// Wait for both final callbacks. On a busy machine an answer can miss the time-scaled limit, so a
			// callback may arrive twice (the retry): look callbacks up by status, not by position.
			const final = (id) =>
				rx.received.map((r) => r.body).find((b) => b.id === id && b.status !== 'processing');
			await waitFor(
				() => final(ok.json.id) && final(bad.json.id),
				`the final callbacks of ${ok.json.id} and ${bad.json.id}`,
			);
			const first = (id) => rx.received.map((r) => r.body).find((b) => b.id === id);
			expect(first(ok.json.id)).toMatchObject({
				status: 'processing',
				type: 'video',
				output: { video_url: '', cover_url: '', duration: 0 },
			});
			expect(first(bad.json.id)).toMatchObject({ status: 'processing' });
			const forOk = [first(ok.json.id), final(ok.json.id)];
			expect(forOk[1]).toEqual({
				id: ok.json.id,
				status: 'succeed',
				type: 'video',
				output: {
					video_url: `${sim.url}/files/videos/${ok.json.id}.mp4`,
					cover_url: expect.stringMatching(/\.png$/),
					duration: 6,
				},
				created_at: ok.json.created_at,
				updated_at: expect.any(Number),
			});
			expect(final(bad.json.id)).toMatchObject({
				status: 'failed',
				message: 'Content policy violation (simulated)',
			});
			expect((await fetch(forOk[1].output.cover_url)).headers.get('content-type')).toBe(
				'image/png',
			);
		} finally {
			await rx.close();
		}
	});
});

describe('control endpoints for other processes', () => {
	test('/__sim/inject, latency, callback, requests, reset', async () => {
		const post = (p, body) =>
			fetch(sim.url + p, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
			}).then((r) => r.json());
		expect(
			await post('/__sim/inject', { path: '/v1/video/create', status: 500, times: 1 }),
		).toEqual({ ok: true });
		expect((await api('/v1/video/create', { model: 'vidmodel', prompt: 'x' })).status).toBe(500);
		await post('/__sim/inject', { pathRegex: '^/v1/videos/', status: 502 });
		expect((await api('/v1/videos/abc', undefined)).status).toBe(502);
		expect(
			(await fetch(`${sim.url}/__sim/inject`, { method: 'POST', body: '{"status":"x"}' })).status,
		).toBe(400);

		expect(await post('/__sim/latency', { ms: 0 })).toEqual({ ok: true, latencyMs: 0 });
		const requests = await (await fetch(`${sim.url}/__sim/requests`)).json();
		expect(requests.map((r) => r.path)).toEqual(['/v1/video/create', '/v1/videos/abc']);

		const rx = await startReceiver([{ status: 200 }]);
		try {
			const attempts = await post('/__sim/callback', { url: rx.url, payload: { hello: 1 } });
			expect(attempts).toHaveLength(1);
			expect(attempts[0]).toMatchObject({
				url: rx.url,
				payload: { hello: 1 },
				attempt: 1,
				status: 200,
			});
			expect(await (await fetch(`${sim.url}/__sim/callbacks`)).json()).toHaveLength(1);
		} finally {
			await rx.close();
		}
		await post('/__sim/reset', {});
		expect(await (await fetch(`${sim.url}/__sim/requests`)).json()).toEqual([]);
		expect(sim.callbackLog).toHaveLength(0);
	});
});

describe('cli', () => {
	test('prints its URL as one JSON line, serves, and exits 0 on SIGTERM without printing the key', async () => {
		const child = spawn(
			process.execPath,
			[
				path.join(__dirname, '..', '..', 'dev', 'simulator', 'cli.js'),
				'--port',
				'0',
				'--api-key',
				'cli-secret-key',
				'--latency',
				'0',
				'--time-scale',
				'0.01',
			],
			{
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		let out = '';
		child.stdout.on('data', (d) => (out += d));
		const exited = new Promise((r) => child.on('exit', (code, signal) => r({ code, signal })));
		try {
			await waitFor(() => out.includes('\n'), 'the CLI to print its URL line');
			const { url } = JSON.parse(out.split('\n')[0]);
			expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
			const r = await fetch(`${url}/imgmodel/v1/imgmodel-v3/generate`, {
				method: 'POST',
				headers: { authorization: 'Bearer cli-secret-key', 'content-type': 'application/json' },
				body: JSON.stringify({ prompt: 'x' }),
			});
			expect(r.status).toBe(200);
		} finally {
			child.kill('SIGTERM');
		}
		expect(await exited).toEqual({ code: 0, signal: null });
		expect(out).not.toContain('cli-secret-key');
	});
});
