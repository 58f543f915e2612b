/**
 * Fuzz: several hundred malformed callback bodies, generated from a seeded PRNG (so a failure can
 * be replayed), go through webhook(). Every one must be answered 400 (or 401 when the token is
 * missing or wrong), start no execution, and never throw.
 */
import type { IDataObject } from 'n8n-workflow';

import { CALLBACK_LIMITS, parseCallback } from '../../nodes/shared/gateway/callbacks';
import { answerLikeN8n, callWebhook } from './fakes';
import { expectWithin } from './timing';
import { imageSuccess, musicComplete, videoSuccess } from './samples';

const SEED = 0x5eed_c0de;
const CASES = 600;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prng } = require('../../dev/prng') as { prng: (seed: number) => () => number };

const random = prng(SEED);
const int = (max: number) => Math.floor(random() * max);
const pick = <T>(values: readonly T[]): T => values[int(values.length)];

function randomString(): string {
	const alphabet = 'abcXYZ019 _-%{}"\\\u00e9\u4e2d\ud83d\ude00\u0000';
	return Array.from({ length: int(12) }, () => alphabet[int(alphabet.length)]).join('');
}

function randomJson(depth = 0): unknown {
	const roll = int(depth > 3 ? 5 : 7);
	switch (roll) {
		case 0:
			return null;
		case 1:
			return random() < 0.5;
		case 2:
			return pick([0, -1, 1.5, 1e308, -0, 42, Number.MAX_SAFE_INTEGER]);
		case 3:
		case 4:
			return randomString();
		case 5:
			return Array.from({ length: int(4) }, () => randomJson(depth + 1));
		default: {
			const object: Record<string, unknown> = {};
			for (let i = int(4); i > 0; i--) object[randomString()] = randomJson(depth + 1);
			return object;
		}
	}
}

type Sample = Record<string, unknown> & { output?: Record<string, unknown> };
const samples: Array<() => Sample> = [imageSuccess, videoSuccess, musicComplete];

const WRONG_FOR: Record<'string' | 'integer' | 'number', unknown[]> = {
	string: [7, true, false, {}, [], ['text'], { text: 'x' }],
	integer: ['1700000000', true, {}, [], 1.5, -3, [1]],
	number: ['8', true, {}, [], -1, [8]],
};

// Field → its type in the callback payloads (docs/gateway-interface.md, Callbacks), per payload kind (top level and inside `output`).
const FIELDS: Record<string, Array<[path: string[], type: keyof typeof WRONG_FOR]>> = {
	image: [
		[['action'], 'string'],
		[['status'], 'string'],
		[['prompt'], 'string'],
		[['imageUrl'], 'string'],
		[['progress'], 'string'],
		[['failReason'], 'string'],
		[['submitTime'], 'integer'],
		[['startTime'], 'integer'],
		[['finishTime'], 'integer'],
	],
	video: [
		[['status'], 'string'],
		[['type'], 'string'],
		[['output', 'video_url'], 'string'],
		[['output', 'cover_url'], 'string'],
		[['output', 'duration'], 'number'],
		[['created_at'], 'integer'],
		[['updated_at'], 'integer'],
	],
	music: [
		[['status'], 'string'],
		[['output', 'audio_url'], 'string'],
		[['output', 'title'], 'string'],
		[['output', 'duration'], 'number'],
	],
};

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
	let cursor = target;
	for (const key of path.slice(0, -1)) cursor = cursor[key] as Record<string, unknown>;
	cursor[path[path.length - 1]] = value;
}

function nested(depth: number): unknown {
	let value: unknown = 'leaf';
	for (let i = 0; i < depth; i++) value = random() < 0.5 ? [value] : { k: value };
	return value;
}

/** Puts a forbidden key somewhere in a valid body: top level, in output, or deep inside an extra field. */
function withPollution(body: Sample): Sample {
	const key = pick(['__proto__', 'constructor', 'prototype']);
	const host: Record<string, unknown> = pick(['top', 'output', 'deep']) === 'top' ? body : {};
	if (host !== body) {
		if (body.output && random() < 0.5) {
			Object.assign(body.output, { inner: host });
		} else {
			let wrapper: unknown = host;
			for (let i = int(6); i > 0; i--) wrapper = random() < 0.5 ? [wrapper] : { w: wrapper };
			body.extra = wrapper;
		}
	}
	// defineProperty makes an own "__proto__" key, exactly as JSON.parse does.
	Object.defineProperty(host, key, {
		value: { polluted: true },
		enumerable: true,
		writable: true,
		configurable: true,
	});
	return body;
}

/** A character the gateway never puts into an id, status word or URL: C0, DEL or C1. */
function controlCharacter(): string {
	return String.fromCharCode(
		pick([0x00, 0x01, 0x08, 0x09, 0x0a, 0x0d, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9f]),
	);
}

function withControlCharacter(value: string): string {
	const at = int(value.length + 1);
	return value.slice(0, at) + controlCharacter() + value.slice(at);
}

const URL_PATHS: Record<string, string[][]> = {
	image: [['imageUrl']],
	video: [
		['output', 'video_url'],
		['output', 'cover_url'],
	],
	music: [['output', 'audio_url']],
};

const generators: Record<string, () => unknown> = {
	notAnObject: () =>
		random() < 0.3 ? undefined : pick([randomJson(4), [randomJson()], randomString(), 0, null]),
	wrongType: () => {
		const index = int(3);
		const body = samples[index]();
		const [path, type] = pick(FIELDS[['image', 'video', 'music'][index]]);
		setPath(body, path, pick(WRONG_FOR[type]));
		return body;
	},
	wrongOutput: () => {
		const body = pick([videoSuccess, musicComplete])() as Sample;
		body.output = pick(['x', 5, true, [], [{ video_url: 'u' }]]) as never;
		return body;
	},
	missingStatus: () => {
		const body = pick(samples)();
		delete body.status;
		return body;
	},
	badId: () => {
		const body = pick(samples)();
		const choice = int(8);
		if (choice === 0) delete body.id;
		else
			body.id = pick([
				null,
				'',
				'   ',
				42,
				true,
				{},
				[],
				['id'],
				'x'.repeat(CALLBACK_LIMITS.maxTaskIdLength + 1 + int(100)),
			]);
		return body;
	},
	unrecognised: () => {
		// Keys of no payload: no markers, no type "video", no output with known fields.
		const body: Record<string, unknown> = {
			id: `task-${int(1000)}`,
			status: pick(['done', 'ok', 'succeed', 'complete', '']),
		};
		for (let i = int(4); i > 0; i--)
			body[pick(['foo', 'bar', 'result', 'url', 'data', 'meta'])] = randomJson(2);
		if (random() < 0.3) body.output = { url: 'https://x', size: 3 };
		if (random() < 0.3) body.type = pick(['audio', 'image', 'music', 3]);
		return body;
	},
	pollution: () => withPollution(pick(samples)()),
	tooDeep: () => ({ ...pick(samples)(), extra: nested(CALLBACK_LIMITS.maxDepth + 1 + int(3000)) }),
	tooWide: () => ({
		...pick(samples)(),
		extra: new Array(CALLBACK_LIMITS.maxValues + int(50_000)).fill(int(9)),
	}),
	controlInId: () => {
		const body = pick(samples)();
		body.id = withControlCharacter(String(body.id));
		return body;
	},
	controlInStatus: () => {
		const body = pick(samples)();
		body.status = withControlCharacter(String(body.status));
		return body;
	},
	controlInUrl: () => {
		const index = int(3);
		const body = samples[index]();
		setPath(
			body,
			pick(URL_PATHS[['image', 'video', 'music'][index]]),
			withControlCharacter('https://cdn.example.com/x.bin'),
		);
		return body;
	},
	oversizeWord: () => {
		const body = pick(samples)();
		if (random() < 0.5) body.id = 'i'.repeat(CALLBACK_LIMITS.maxTaskIdLength + 1 + int(5000));
		else body.status = 'S'.repeat(CALLBACK_LIMITS.maxWordLength + 1 + int(5000));
		return body;
	},
	oversizeUrl: () => {
		const index = int(3);
		const body = samples[index]();
		// Between the URL bound and the text bound (field reason), or far beyond both (the 1 MB URL).
		const length = random() < 0.5 ? CALLBACK_LIMITS.maxUrlLength + 1 + int(5000) : 1 << 20;
		setPath(
			body,
			pick(URL_PATHS[['image', 'video', 'music'][index]]),
			`https://cdn.example.com/${'a'.repeat(length)}`,
		);
		return body;
	},
	oversizeText: () => {
		const body = pick(samples)();
		const text = 't'.repeat(CALLBACK_LIMITS.maxTextLength + 1 + int(1 << 20));
		const where = int(3);
		if (where === 0 && 'prompt' in body) body.prompt = text;
		else if (where === 1) body.extra = { note: [text] };
		else body.message = text;
		return body;
	},
	oversizeKey: () => ({
		...pick(samples)(),
		['k'.repeat(CALLBACK_LIMITS.maxKeyLength + 1 + int(5000))]: int(9),
	}),
	tooManyKeys: () => {
		const extra: Record<string, number> = {};
		for (let i = CALLBACK_LIMITS.maxValues + int(2000); i > 0; i--) extra[`k${i}`] = i;
		return { ...pick(samples)(), extra };
	},
};

/** Content types that are not JSON, as a sender or a proxy might label a body. */
const NOT_JSON = [
	'application/x-www-form-urlencoded',
	'application/x-www-form-urlencoded; charset=utf-8',
	'multipart/form-data; boundary=----x',
	'text/plain',
	'text/plain; charset=utf-8',
	'text/html',
	'application/xml',
	'text/xml',
	'application/octet-stream',
	'application/jsonp',
	'application/json-patch',
	'json',
	'',
	undefined,
];

describe(`fuzz: ${CASES} malformed bodies (seed ${SEED.toString(16)})`, () => {
	const names = Object.keys(generators);
	const SECRET = 'fuzz-secret-8d1f0c';
	const counts: Record<string, number> = {};

	it('never throws, always answers 400/401 with a short JSON reason, never starts an execution', async () => {
		// CPU time of the guard below (the parser alone, walking each body as far as its bounds let it) and of
		// answering the bodies, kept apart: see the end of the test.
		let parsingUs = 0;
		let answeringUs = 0;
		const cpuUs = (used: NodeJS.CpuUsage) => used.user + used.system;
		for (let i = 0; i < CASES; i++) {
			const name = names[i % names.length];
			counts[name] = (counts[name] ?? 0) + 1;
			const body = generators[name]();
			// Guard on the generator itself: it must only produce invalid bodies.
			const parsing = process.cpuUsage();
			const parsed = parseCallback(body);
			parsingUs += cpuUs(process.cpuUsage(parsing));
			if (parsed.ok) throw new Error(`case ${i} (${name}) generated a valid body`);

			const auth = int(4);
			const parameters: IDataObject =
				auth === 0
					? { authentication: 'none' }
					: { authentication: auth === 1 ? 'queryToken' : 'headerToken', secretToken: SECRET };
			const presents = pick(['right', 'wrong', 'missing']);
			const token = presents === 'right' ? SECRET : presents === 'wrong' ? `${SECRET}!` : undefined;
			const request =
				auth === 1 && token !== undefined
					? { body, query: { token } }
					: auth >= 2 && token !== undefined
						? { body, headers: { 'X-Callback-Token': token } }
						: { body };
			const expected = auth === 0 || presents === 'right' ? 400 : 401;

			let call;
			const answering = process.cpuUsage();
			try {
				call = await callWebhook(request, { parameters, staticData: {} });
			} catch (error) {
				throw new Error(`case ${i} (${name}) threw: ${(error as Error).message}`);
			}
			answeringUs += cpuUs(process.cpuUsage(answering));
			const answer = answerLikeN8n(call.result, call.res);
			const context = `case ${i} (${name}, auth ${auth}, ${presents})`;
			expect([context, answer.status]).toEqual([context, expected]);
			expect(answer.executionStarted).toBe(false);
			expect(call.result.workflowData).toBeUndefined();
			expect(call.staticData).toEqual({});
			const error = (answer.body as { error?: unknown }).error;
			expect(typeof error).toBe('string');
			expect((error as string).length).toBeLessThan(120);
			if (expected === 400) expect(error).toBe(parsed.reason);
		}
		// Nothing stalls on the big ones (1 MB strings, 60 000 values): answering all 600 costs no more CPU than
		// a few times parsing them, plus the webhook's fixed cost per call (about 0.1 ms; 500 ms in all leaves
		// room). Two CPU figures taken side by side, so it holds on a busy machine as on an idle one; the
		// parser's own bounds are guarded in callbacks.test.ts.
		expectWithin(
			answeringUs / 1000,
			parsingUs / 1000,
			3,
			`answering ${CASES} fuzz bodies against parsing them`,
			500,
		);
		for (const name of names)
			expect(counts[name]).toBeGreaterThanOrEqual(Math.floor(CASES / names.length));
	});
});

describe(`fuzz: ${CASES} callbacks that are not sent as JSON (seed ${SEED.toString(16)})`, () => {
	it('refuses every one with 415 before reading it, valid-looking fields or not, and starts nothing', async () => {
		const SECRET = 'fuzz-secret-415';
		for (let i = 0; i < CASES; i++) {
			const contentType = pick(NOT_JSON);
			// What n8n's parsers leave in the body for such requests: fields of a form, a string, nothing.
			const sample = pick(samples)();
			const body = pick([
				() =>
					Object.fromEntries(
						Object.entries(sample).map(([k, v]) => [
							k,
							typeof v === 'object' ? JSON.stringify(v) : String(v),
						]),
					),
				() => sample,
				() => JSON.stringify(sample),
				() => undefined,
				() => randomJson(),
			])();
			const withToken = random() < 0.5;
			const call = await callWebhook(
				{
					body,
					headers: { 'content-type': contentType },
					query: withToken ? { token: SECRET } : {},
				},
				{
					parameters: withToken ? { authentication: 'queryToken', secretToken: SECRET } : {},
					staticData: {},
				},
			);
			const answer = answerLikeN8n(call.result, call.res);
			const context = `case ${i} (${String(contentType)})`;
			expect([context, answer.status, answer.body]).toEqual([
				context,
				415,
				{ error: 'unsupported content type: callbacks are sent as application/json' },
			]);
			expect(answer.executionStarted).toBe(false);
			expect(call.staticData).toEqual({});
		}
	});
});
