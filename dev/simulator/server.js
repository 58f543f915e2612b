'use strict';
/**
 * Local stand-in for the remote media gateway, whose interface docs/gateway-interface.md describes.
 * Implements its nine endpoints with their request validation, serves result files like a CDN, runs
 * video tasks on a clock, sends notifyHook callbacks with the gateway's retry schedule, and lets tests inject
 * faults. Plain CommonJS on Node built-ins so benchmarks, e2e tests and the demo can run it without a build.
 */
const http = require('node:http');
const crypto = require('node:crypto');
const { URL } = require('node:url');
const { pipeline } = require('node:stream');
const { pngFor, rememberPicture, mp4Stream, DEFAULT_VIDEO_BYTES } = require('./assets');
const { sendCallback, sleep } = require('./callbacks');

const MAX_BODY_BYTES = 20 * 1024 * 1024;
const MAX_FILE_BYTES = 8 * 1024 * 1024 * 1024;
const VIDEO_MODELS = ['vidmodel', 'vidmodel-pro'];
const FAIL_MESSAGE = 'Content policy violation (simulated)';

// ---------------------------------------------------------------------------------------------------------
// Validation: every failure becomes 400 {error:{message:'<field>: <what is wrong>'}}.

class ValidationError extends Error {}

function invalid(field, what) {
	throw new ValidationError(`${field}: ${what}`);
}

function requiredString(body, field) {
	const v = body[field];
	if (v === undefined) invalid(field, 'is required');
	if (typeof v !== 'string') invalid(field, 'must be a string');
	if (v.trim() === '') invalid(field, 'must not be empty');
	return v;
}

/** Optional fields may be absent; null or a wrong type is a client bug worth surfacing. */
function optionalString(body, field) {
	const v = body[field];
	if (v === undefined) return undefined;
	if (typeof v !== 'string') invalid(field, 'must be a string');
	return v;
}

function optionalEnum(body, field, values) {
	const v = optionalString(body, field);
	if (v !== undefined && !values.includes(v)) invalid(field, `must be one of ${values.join(', ')}`);
	return v;
}

function optionalInteger(body, field, min, max) {
	const v = body[field];
	if (v === undefined) return undefined;
	if (typeof v !== 'number' || !Number.isInteger(v)) invalid(field, 'must be an integer');
	if (v < min || v > max) invalid(field, `must be between ${min} and ${max}`);
	return v;
}

function positiveInteger(v, field) {
	if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
		invalid(field, 'must be a positive integer');
	return v;
}

function isHttpUrl(v) {
	try {
		const u = new URL(v);
		return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
	} catch {
		return false;
	}
}

function isBase64(v) {
	const s = v.replace(/\s+/g, '');
	return s.length >= 4 && s.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(s);
}

/** Image inputs: an http(s) URL, raw base64, or a data:image/...;base64, URI (docs/gateway-interface.md, Images). */
function isImageInput(v) {
	if (isHttpUrl(v)) return true;
	const dataUri = /^data:image\/[a-z0-9.+-]+;base64,(.*)$/is.exec(v);
	if (dataUri) return isBase64(dataUri[1]);
	return isBase64(v);
}

function imageField(body, field, required) {
	const v = required ? requiredString(body, field) : optionalString(body, field);
	if (v !== undefined && !isImageInput(v)) {
		invalid(field, 'must be an http(s) URL, base64 data or a data:image/...;base64, URI');
	}
	return v;
}

function urlField(body, field) {
	const v = optionalString(body, field);
	if (v !== undefined && !isHttpUrl(v)) invalid(field, 'must be an http(s) URL');
	return v;
}

function validateImage(op, body) {
	const out = {};
	if (op === 'reframe') out.prompt = optionalString(body, 'prompt');
	else out.prompt = requiredString(body, 'prompt');
	if (op !== 'generate') out.image = imageField(body, 'image', true);
	if (op === 'generate') {
		const ar = optionalString(body, 'aspect_ratio');
		if (ar !== undefined && !/^ASPECT_\d+_\d+$/.test(ar))
			invalid('aspect_ratio', 'must look like ASPECT_<w>_<h>');
		optionalString(body, 'model');
		optionalEnum(body, 'magic_prompt_option', ['AUTO', 'ON', 'OFF']);
		optionalEnum(body, 'rendering_speed', ['DEFAULT', 'TURBO', 'QUALITY']);
		optionalEnum(body, 'style_type', ['AUTO', 'GENERAL', 'REALISTIC', 'DESIGN']);
		optionalString(body, 'negative_prompt');
		// Not part of the gateway's interface: lets tests ask for several results to check one-item-per-image output.
		out.count = optionalInteger(body, 'num_images', 1, 4) ?? 1;
	}
	if (op === 'edit') {
		imageField(body, 'mask', false);
		optionalString(body, 'style_type');
	}
	if (op === 'remix') {
		const w = body.image_weight;
		if (w !== undefined && (typeof w !== 'number' || !Number.isFinite(w) || w < 0 || w > 100)) {
			invalid('image_weight', 'must be a number between 0 and 100');
		}
	}
	if (op === 'reframe') out.resolution = optionalString(body, 'resolution');
	if (op === 'generate') out.aspectRatio = body.aspect_ratio;
	return out;
}

function parseSize(v) {
	const m = /^(\d+)x(\d+)$/.exec(v);
	if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) return null;
	return { width: Number(m[1]), height: Number(m[2]) };
}

function parseRatio(v) {
	const m = /^(\d+):(\d+)$/.exec(v);
	if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) return null;
	return { w: Number(m[1]), h: Number(m[2]) };
}

/** 720 on the short side, the long side from the ratio, rounded to even (what encoders accept). */
function dimensionsFromRatio({ w, h }) {
	const even = (n) => Math.max(2, Math.round(n / 2) * 2);
	return w >= h
		? { width: even((720 * w) / h), height: 720 }
		: { width: 720, height: even((720 * h) / w) };
}

function validateVideo(body) {
	const model = body.model;
	if (model === undefined) invalid('model', 'is required');
	if (typeof model !== 'string' || !VIDEO_MODELS.includes(model)) {
		invalid('model', `must be one of ${VIDEO_MODELS.join(', ')}`);
	}
	let storyboard;
	if (body.storyboard !== undefined) {
		if (!Array.isArray(body.storyboard) || body.storyboard.length === 0) {
			invalid('storyboard', 'must be a non-empty array of scenes');
		}
		storyboard = body.storyboard.map((scene, i) => {
			const field = `storyboard[${i}]`;
			if (scene === null || typeof scene !== 'object' || Array.isArray(scene))
				invalid(field, 'must be an object');
			const prompt = scene.prompt;
			if (prompt === undefined) invalid(`${field}.prompt`, 'is required');
			if (typeof prompt !== 'string' || prompt.trim() === '')
				invalid(`${field}.prompt`, 'must be a non-empty string');
			if (scene.duration === undefined) invalid(`${field}.duration`, 'is required');
			positiveInteger(scene.duration, `${field}.duration`);
			return { prompt, duration: scene.duration };
		});
	}
	if (storyboard === undefined && body.prompt === undefined)
		invalid('prompt', 'is required unless storyboard is given');
	const prompt = storyboard ? optionalString(body, 'prompt') : requiredString(body, 'prompt');
	const aspectRatio = optionalString(body, 'aspect_ratio');
	if (aspectRatio !== undefined && !parseRatio(aspectRatio))
		invalid('aspect_ratio', 'must have the form <w>:<h>');
	const size = optionalString(body, 'size');
	if (size !== undefined && !parseSize(size))
		invalid('size', 'must have the form <width>x<height>');
	const duration =
		body.duration === undefined ? undefined : positiveInteger(body.duration, 'duration');
	const imageUrl = imageField(body, 'image_url', false);
	const notifyHook = urlField(body, 'notifyHook');
	return { model, prompt, storyboard, aspectRatio, size, duration, imageUrl, notifyHook };
}

function validateCharacter(body) {
	const name = requiredString(body, 'name');
	const description = requiredString(body, 'description');
	let referenceImages = [];
	if (body.reference_images !== undefined) {
		if (!Array.isArray(body.reference_images))
			invalid('reference_images', 'must be an array of strings');
		body.reference_images.forEach((v, i) => {
			if (typeof v !== 'string' || v.trim() === '')
				invalid(`reference_images[${i}]`, 'must be a non-empty string');
		});
		referenceImages = body.reference_images;
	}
	return { name, description, referenceImages };
}

// ---------------------------------------------------------------------------------------------------------
// HTTP helpers

function sendJson(res, status, payload, headers = {}) {
	if (res.headersSent || res.destroyed) return;
	const body = Buffer.from(JSON.stringify(payload));
	res.writeHead(status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': body.length,
		...headers,
	});
	res.end(body);
}

function sendError(res, status, message, headers) {
	sendJson(res, status, { error: { message } }, headers);
}

/** Reads the body up to MAX_BODY_BYTES; beyond that resolves {tooLarge:true} and discards the rest. */
function readBody(req) {
	return new Promise((resolve) => {
		const chunks = [];
		let size = 0;
		let tooLarge = false;
		req.on('data', (chunk) => {
			if (tooLarge) return;
			size += chunk.length;
			if (size > MAX_BODY_BYTES) {
				tooLarge = true;
				chunks.length = 0;
				resolve({ tooLarge: true, raw: null });
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => {
			if (!tooLarge) resolve({ tooLarge: false, raw: Buffer.concat(chunks) });
		});
		req.on('error', () => resolve({ tooLarge: false, raw: null, aborted: true }));
	});
}

function tryParseJson(raw) {
	if (!raw || raw.length === 0) return { ok: false, empty: true };
	try {
		return { ok: true, value: JSON.parse(raw.toString('utf8')) };
	} catch {
		return { ok: false, empty: false };
	}
}

function isJsonContentType(header) {
	return (
		typeof header === 'string' && header.split(';')[0].trim().toLowerCase() === 'application/json'
	);
}

function redactHeaders(headers) {
	const out = {};
	for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
	if (out.authorization !== undefined) out.authorization = 'Bearer ***';
	return out;
}

/** Constant-time comparison of the presented bearer token against the configured key. */
function authorised(header, apiKey) {
	if (typeof header !== 'string') return false;
	const m = /^Bearer\s+(.+)$/i.exec(header.trim());
	if (!m) return false;
	const a = crypto.createHash('sha256').update(m[1]).digest();
	const b = crypto.createHash('sha256').update(apiKey).digest();
	return crypto.timingSafeEqual(a, b);
}

function randomId(prefix) {
	return `${prefix}_${crypto.randomBytes(9).toString('base64url')}`;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

// ---------------------------------------------------------------------------------------------------------

/**
 * Starts the simulator. See README.md for the option and method reference.
 * @returns {Promise<object>} the simulator handle
 */
async function startSimulator(options = {}) {
	const {
		host = '127.0.0.1',
		port = 0,
		apiKey = 'sim-key',
		latencyMs = 0,
		videoCompleteAfterMs = 1500,
		proCompleteAfterMs,
		videoCompleteJitterMs = 0,
		sendCallbacks = true,
		callbackTimeScale = 1,
		// Overrides the scaled 5 s answer limit of the callbacks this simulator sends (see callbacks.js).
		callbackAnswerLimitMs,
		publicUrl,
	} = options;
	if (typeof apiKey !== 'string' || apiKey === '')
		throw new Error('startSimulator: apiKey must be a non-empty string');

	let latency = latencyMs;
	let faults = [];
	const requests = [];
	const tasks = new Map();
	const callbackLog = [];
	const taskTimers = new Set();
	const closing = new AbortController();
	// Replaced on reset(): aborting it cancels task timers and pending callbacks of the previous "test".
	let generation = new AbortController();
	let closed = false;

	const sim = {
		url: '',
		/** The callback the gateway would send for a task now (what its clock would send). */
		callbackFor(taskId) {
			const task = tasks.get(taskId);
			settle(task);
			return videoCallbackPayload(task);
		},
		requests,
		tasks,
		callbackLog,
		inject,
		setLatency(ms) {
			if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
				throw new Error('setLatency: ms must be a number >= 0');
			latency = ms;
		},
		reset,
		sendCallback: (url, payload, { retry = true, answerLimitMs } = {}) =>
			dispatchCallback(url, payload, retry, answerLimitMs),
		close,
	};
	const baseUrl = () => (publicUrl || sim.url).replace(/\/+$/, '');

	function inject(fault) {
		if (!fault || typeof fault !== 'object') throw new Error('inject: fault must be an object');
		const {
			path,
			method,
			status,
			times = 1,
			retryAfter,
			body,
			delayMs = 0,
			closeConnection = false,
		} = fault;
		if (path !== undefined && typeof path !== 'string' && !(path instanceof RegExp)) {
			throw new Error('inject: path must be a string or RegExp');
		}
		if (!closeConnection && (!Number.isInteger(status) || status < 100 || status > 599)) {
			throw new Error('inject: status must be an HTTP status code (or set closeConnection)');
		}
		if (!Number.isInteger(times) || times < 1)
			throw new Error('inject: times must be a positive integer');
		faults.push({
			path,
			method: method ? String(method).toUpperCase() : undefined,
			status,
			remaining: times,
			retryAfter,
			body,
			delayMs,
			closeConnection: Boolean(closeConnection),
		});
	}

	function takeFault(method, pathname) {
		const fault = faults.find(
			(f) =>
				(f.method === undefined || f.method === method) &&
				(f.path === undefined ||
					(f.path instanceof RegExp ? f.path.test(pathname) : f.path === pathname)),
		);
		if (!fault) return null;
		fault.remaining -= 1;
		if (fault.remaining <= 0) faults = faults.filter((f) => f !== fault);
		return fault;
	}

	function reset() {
		requests.length = 0;
		faults = [];
		for (const t of taskTimers) clearTimeout(t);
		taskTimers.clear();
		tasks.clear();
		callbackLog.length = 0;
		generation.abort(new Error('simulator reset'));
		generation = new AbortController();
	}

	function dispatchCallback(url, payload, retry, answerLimitMs = callbackAnswerLimitMs) {
		if (closed) return Promise.resolve([]);
		return sendCallback(url, payload, {
			retry,
			timeScale: callbackTimeScale,
			answerLimitMs,
			signal: AbortSignal.any([generation.signal, closing.signal]),
			log: callbackLog,
		});
	}

	function later(ms, fn) {
		const t = setTimeout(
			() => {
				taskTimers.delete(t);
				fn();
			},
			Math.max(0, ms),
		);
		if (typeof t.unref === 'function') t.unref();
		taskTimers.add(t);
	}

	// ----- video tasks ----------------------------------------------------------------------------------

	function videoCallbackPayload(task) {
		const done = task.status === 'completed';
		const failed = task.status === 'failed';
		const payload = {
			id: task.id,
			status: done ? 'succeed' : failed ? 'failed' : 'processing',
			type: 'video',
			output: {
				video_url: done ? task.video.url : '',
				cover_url: done ? `${baseUrl()}/files/images/${task.id}-cover.png` : '',
				duration: done ? task.video.duration : 0,
			},
			created_at: task.created_at,
			updated_at: nowSeconds(),
		};
		if (failed) payload.message = task.error.message;
		return payload;
	}

	/** Moves a task to its final state once its time has come; idempotent (timer and query both call it). */
	function settle(task) {
		if (task.status !== 'processing' || Date.now() < task.completeAt) return false;
		if (task.willFail) {
			task.status = 'failed';
			task.error = { message: FAIL_MESSAGE };
		} else {
			task.status = 'completed';
			task.video = {
				url: `${baseUrl()}/files/videos/${task.id}.mp4`,
				duration: task.videoDuration,
				width: task.width,
				height: task.height,
			};
		}
		task.updatedAt = Date.now();
		return true;
	}

	function createVideoTask(endpoint, v) {
		const id = randomId('vid');
		const prompts = [v.prompt || '', ...(v.storyboard || []).map((s) => s.prompt)].join('\n');
		let after =
			v.model === 'vidmodel-pro'
				? (proCompleteAfterMs ?? 2 * videoCompleteAfterMs)
				: videoCompleteAfterMs;
		if (prompts.includes('[slow]')) after *= 10;
		// A spread of completion times, so a batch of tasks finishes (and calls back) in random order.
		if (videoCompleteJitterMs > 0) after += crypto.randomInt(0, videoCompleteJitterMs + 1);
		let dims = { width: 1280, height: 720 };
		if (v.size) dims = parseSize(v.size);
		else if (v.aspectRatio) dims = dimensionsFromRatio(parseRatio(v.aspectRatio));
		const createdAt = Date.now();
		const task = {
			id,
			endpoint,
			model: v.model,
			prompt: v.prompt,
			storyboard: v.storyboard,
			size: v.size,
			aspect_ratio: v.aspectRatio,
			duration: v.duration,
			image_url: v.imageUrl,
			notifyHook: v.notifyHook,
			status: 'processing',
			created_at: Math.floor(createdAt / 1000),
			createdAt,
			completeAt: createdAt + after,
			updatedAt: createdAt,
			willFail: prompts.includes('[fail]'),
			width: dims.width,
			height: dims.height,
			videoDuration:
				v.duration ?? (v.storyboard ? v.storyboard.reduce((s, x) => s + x.duration, 0) : 5),
			video: undefined,
			error: undefined,
		};
		tasks.set(id, task);
		rememberPicture(
			`${id}-cover`,
			{ prompt: prompts, seed: id, aspectRatio: `ASPECT_${dims.width}_${dims.height}` },
			{ drawNow: false },
		);
		// sendCallbacks: false leaves every callback to the test (sim.sendCallback), e.g. to replay a retry storm.
		if (task.notifyHook && sendCallbacks) {
			// "Right after creation": after the create response has been written.
			later(0, () => dispatchCallback(task.notifyHook, videoCallbackPayload(task), true));
		}
		later(after, () => {
			if (tasks.get(id) !== task) return;
			// A test moved the task's end later, to keep it unfinished: that moment rules, not this timer (the task
			// then settles when asked after it, and sends no final callback).
			if (task.completeAt > createdAt + after) return;
			// A timer may fire a millisecond before Date.now() reaches completeAt; its moment has come, so the
			// task settles now (otherwise this callback would say `processing` and no final one would follow).
			task.completeAt = Math.min(task.completeAt, Date.now());
			settle(task);
			if (task.notifyHook && sendCallbacks)
				dispatchCallback(task.notifyHook, videoCallbackPayload(task), true);
		});
		return task;
	}

	function videoQueryView(task) {
		settle(task);
		if (task.status === 'completed') return { id: task.id, status: 'completed', video: task.video };
		if (task.status === 'failed') return { id: task.id, status: 'failed', error: task.error };
		return { id: task.id, status: 'processing' };
	}

	// ----- routes ----------------------------------------------------------------------------------------

	function imageHandler(op) {
		return ({ body }) => {
			const v = validateImage(op, body);
			let resolution = '1024x1024';
			if (op === 'reframe')
				resolution = v.resolution && parseSize(v.resolution) ? v.resolution : '1536x1024';
			const prompt = v.prompt ?? '';
			// The picture's shape: generate's aspect ratio, reframe's resolution; the others answer squares.
			const size = op === 'reframe' ? parseSize(resolution) : null;
			const aspectRatio = size ? `ASPECT_${size.width}_${size.height}` : v.aspectRatio;
			const data = [];
			for (let i = 0; i < (v.count || 1); i++) {
				const seed = crypto.randomInt(1, 2 ** 31 - 1);
				rememberPicture(seed, { prompt, seed, aspectRatio });
				data.push({
					url: `${baseUrl()}/files/images/${seed}.png`,
					prompt,
					resolution,
					is_image_safe: !prompt.includes('[unsafe]'),
					seed,
				});
			}
			return [200, { created: nowSeconds(), data }];
		};
	}

	function videoCreateHandler(endpoint) {
		return ({ body }) => {
			const v = validateVideo(body);
			const task = createVideoTask(endpoint, v);
			return [200, { id: task.id, status: 'processing', created_at: task.created_at }];
		};
	}

	const routes = [
		{ path: '/imgmodel/v1/imgmodel-v3/generate', method: 'POST', handle: imageHandler('generate') },
		{ path: '/imgmodel/v1/imgmodel-v3/edit', method: 'POST', handle: imageHandler('edit') },
		{ path: '/imgmodel/v1/imgmodel-v3/remix', method: 'POST', handle: imageHandler('remix') },
		{ path: '/imgmodel/v1/imgmodel-v3/reframe', method: 'POST', handle: imageHandler('reframe') },
		{
			path: '/imgmodel/v1/imgmodel-v3/replace-background',
			method: 'POST',
			handle: imageHandler('replace-background'),
		},
		{ path: '/v1/video/create', method: 'POST', handle: videoCreateHandler('/v1/video/create') },
		{ path: '/v1/videos', method: 'POST', handle: videoCreateHandler('/v1/videos') },
		{
			pattern: /^\/v1\/videos\/([^/]+)$/,
			method: 'GET',
			handle: ({ params }) => {
				const task = tasks.get(decodeURIComponent(params[0]));
				if (!task) return [404, { error: { message: 'Task not found' } }];
				return [200, videoQueryView(task)];
			},
		},
		{
			path: '/vidmodel/v1/characters',
			method: 'POST',
			handle: ({ body }) => {
				const c = validateCharacter(body);
				return [
					200,
					{
						id: randomId('char'),
						name: c.name,
						description: c.description,
						reference_images: c.referenceImages,
						created_at: nowSeconds(),
					},
				];
			},
		},
	];

	/** Returns {route, params} for the path, {methodMismatch, allow} when only the method is wrong, or null. */
	function matchRoute(list, method, pathname) {
		const hits = [];
		for (const r of list) {
			if (r.path !== undefined ? r.path === pathname : r.pattern.test(pathname)) hits.push(r);
		}
		if (hits.length === 0) return null;
		const route = hits.find((r) => r.method === method);
		if (!route) return { methodMismatch: true, allow: hits.map((r) => r.method).join(', ') };
		const params = route.pattern ? route.pattern.exec(pathname).slice(1) : [];
		return { route, params };
	}

	// ----- files (no auth, no latency: a CDN) -----------------------------------------------------------

	function serveFile(req, res, pathname, query) {
		if (req.method !== 'GET' && req.method !== 'HEAD') {
			return sendError(res, 405, 'Method not allowed', { allow: 'GET, HEAD' });
		}
		let m = /^\/files\/images\/([A-Za-z0-9_-]+)\.png$/.exec(pathname);
		if (m) {
			const png = pngFor(m[1]);
			res.writeHead(200, {
				'content-type': 'image/png',
				'content-length': png.length,
				'cache-control': 'public, max-age=86400',
			});
			return res.end(req.method === 'HEAD' ? undefined : png);
		}
		m = /^\/files\/videos\/([A-Za-z0-9_-]+)\.mp4$/.exec(pathname);
		if (m) {
			let total = DEFAULT_VIDEO_BYTES;
			if (query.bytes !== undefined) {
				total = Number(query.bytes);
				if (!/^\d+$/.test(query.bytes) || total > MAX_FILE_BYTES) {
					return sendError(res, 400, `bytes: must be an integer between 0 and ${MAX_FILE_BYTES}`);
				}
			}
			res.writeHead(200, {
				'content-type': 'video/mp4',
				'content-length': total,
				'cache-control': 'public, max-age=86400',
			});
			if (req.method === 'HEAD') return res.end();
			// pipeline() honours back-pressure, so an N-byte download never sits in memory at once.
			return pipeline(mp4Stream(total), res, () => {});
		}
		return sendError(res, 404, 'Not found');
	}

	// ----- control endpoints for other processes (no auth) ---------------------------------------------

	function controlBody(parsed) {
		if (!parsed.ok) return parsed.empty ? {} : null;
		return parsed.value && typeof parsed.value === 'object' && !Array.isArray(parsed.value)
			? parsed.value
			: null;
	}

	const controlRoutes = [
		{
			path: '/__sim/inject',
			method: 'POST',
			handle: ({ body }) => {
				const fault = { ...body };
				if (typeof body.pathRegex === 'string') fault.path = new RegExp(body.pathRegex);
				delete fault.pathRegex;
				inject(fault);
				return [200, { ok: true }];
			},
		},
		{ path: '/__sim/reset', method: 'POST', handle: () => (reset(), [200, { ok: true }]) },
		{ path: '/__sim/requests', method: 'GET', handle: () => [200, requests] },
		{ path: '/__sim/callbacks', method: 'GET', handle: () => [200, callbackLog] },
		{
			path: '/__sim/tasks',
			method: 'GET',
			handle: () => [200, [...tasks.values()].map((t) => ({ ...t, ...videoQueryView(t) }))],
		},
		{
			path: '/__sim/callback',
			method: 'POST',
			handle: async ({ body }) => {
				if (!isHttpUrl(body.url)) throw new ValidationError('url: must be an http(s) URL');
				return [200, await dispatchCallback(body.url, body.payload ?? {}, body.retry !== false)];
			},
		},
		{
			path: '/__sim/latency',
			method: 'POST',
			handle: ({ body }) => {
				sim.setLatency(body.ms);
				return [200, { ok: true, latencyMs: latency }];
			},
		},
	];

	async function handleControl(req, res, pathname, raw) {
		const match = matchRoute(controlRoutes, req.method, pathname);
		if (!match) return sendError(res, 404, 'Not found');
		if (match.methodMismatch)
			return sendError(res, 405, 'Method not allowed', { allow: match.allow });
		const body = controlBody(tryParseJson(raw));
		if (body === null) return sendError(res, 400, 'Invalid JSON body');
		try {
			const [status, payload] = await match.route.handle({ body });
			sendJson(res, status, payload);
		} catch (e) {
			sendError(res, 400, e instanceof Error ? e.message : String(e));
		}
	}

	// ----- main handler ----------------------------------------------------------------------------------

	async function handle(req, res) {
		const url = new URL(req.url, 'http://sim.invalid');
		const pathname = url.pathname;
		const query = Object.fromEntries(url.searchParams);
		const { tooLarge, raw, aborted } = await readBody(req);
		if (aborted) return;
		const isControl = pathname.startsWith('/__sim/');
		const isFile = pathname.startsWith('/files/');
		const parsed = tooLarge ? { ok: false } : tryParseJson(raw);

		if (isControl) return handleControl(req, res, pathname, raw);

		requests.push({
			method: req.method,
			path: pathname,
			query,
			headers: redactHeaders(req.headers),
			body: parsed.ok ? parsed.value : null,
			at: Date.now(),
		});

		if (tooLarge)
			return sendError(res, 413, `Request body larger than ${MAX_BODY_BYTES} bytes`, {
				connection: 'close',
			});

		const fault = takeFault(req.method, pathname);
		if (fault) {
			if (fault.delayMs > 0) await sleep(fault.delayMs, closing.signal);
			if (fault.closeConnection) return req.socket.destroy();
			if (!isFile && latency > 0) await sleep(latency, closing.signal);
			const headers =
				fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
			return sendJson(
				res,
				fault.status,
				fault.body ?? { error: { message: `Simulated error ${fault.status}` } },
				headers,
			);
		}

		if (isFile) return serveFile(req, res, pathname, query);

		if (latency > 0) await sleep(latency, closing.signal);

		const match = matchRoute(routes, req.method, pathname);
		if (!match) return sendError(res, 404, 'Not found');
		if (match.methodMismatch)
			return sendError(res, 405, 'Method not allowed', { allow: match.allow });
		// Never echo the presented key: the message is fixed.
		if (!authorised(req.headers.authorization, apiKey))
			return sendError(res, 401, 'Invalid API key');

		let body = null;
		if (req.method === 'POST') {
			if (!isJsonContentType(req.headers['content-type'])) {
				return sendError(res, 415, 'Content-Type must be application/json');
			}
			if (!parsed.ok) return sendError(res, 400, 'Invalid JSON body');
			body = parsed.value;
			if (body === null || typeof body !== 'object' || Array.isArray(body)) {
				return sendError(res, 400, 'body: must be a JSON object');
			}
		}
		try {
			const [status, payload] = await match.route.handle({ body, params: match.params, query });
			sendJson(res, status, payload);
		} catch (e) {
			if (e instanceof ValidationError) return sendError(res, 400, e.message);
			throw e;
		}
	}

	const server = http.createServer((req, res) => {
		handle(req, res).catch((e) => {
			if (closed) return res.destroy();
			sendError(res, 500, `Simulator error: ${e instanceof Error ? e.message : String(e)}`);
		});
	});

	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const address = server.address();
	const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
	sim.url = `http://${urlHost}:${address.port}`;
	sim.port = address.port;

	let closePromise;
	function close() {
		if (closePromise) return closePromise;
		closed = true;
		closing.abort(new Error('simulator closed'));
		generation.abort(new Error('simulator closed'));
		for (const t of taskTimers) clearTimeout(t);
		taskTimers.clear();
		closePromise = new Promise((resolve) => {
			server.close(() => resolve());
			server.closeAllConnections();
		});
		return closePromise;
	}

	return sim;
}

module.exports = { startSimulator, ValidationError, isImageInput };
