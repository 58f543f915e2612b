import {
	CALLBACK_LIMITS,
	checkStructure,
	detectCallbackKind,
	imageCallbackSchema,
	millisecondsToIso,
	musicCallbackSchema,
	parseCallback,
	parseProgress,
	secondsToIso,
	videoCallbackSchema,
} from '../../nodes/shared/gateway/callbacks';
import type { CallbackItem, ParseCallbackResult } from '../../nodes/shared/gateway/callbacks';
import {
	imageFailure,
	imageInProgress,
	imageSuccess,
	musicComplete,
	videoProcessing,
	videoSuccess,
} from './samples';
import { cpuMs, expectWithin } from './timing';

function ok(result: ParseCallbackResult): CallbackItem {
	if (!result.ok) throw new Error(`expected ok, got: ${result.reason}`);
	return result.item;
}

function reason(result: ParseCallbackResult): string {
	if (result.ok) throw new Error(`expected a rejection, got an item of kind ${result.item.kind}`);
	return result.reason;
}

describe('image task callbacks', () => {
	it('normalises a successful image callback', () => {
		const body = imageSuccess();
		const item = ok(parseCallback(body));
		expect(item).toEqual({
			kind: 'image',
			taskId: 'img-task-1',
			status: 'SUCCESS',
			state: 'succeeded',
			progress: 100,
			resultUrl: 'https://cdn.example.com/img-task-1.png',
			coverUrl: null,
			title: null,
			duration: null,
			failReason: null,
			submittedAt: '2023-11-14T22:13:20.000Z',
			startedAt: '2023-11-14T22:13:21.500Z',
			finishedAt: '2023-11-14T22:14:20.250Z',
			createdAt: null,
			updatedAt: null,
			payload: body,
		});
		// The payload is the body itself, untouched.
		expect(item.payload).toBe(body);
	});

	it('maps every status of the task status table (docs/gateway-interface.md, Task status) to its state', () => {
		const states = ['NOT_START', 'IN_PROGRESS', 'SUCCESS', 'FAILURE'].map(
			(status) => ok(parseCallback({ ...imageSuccess(), status })).state,
		);
		expect(states).toEqual(['queued', 'running', 'succeeded', 'failed']);
	});

	it('keeps progress of a running task and null timestamps for 0', () => {
		const item = ok(parseCallback(imageInProgress()));
		expect(item.state).toBe('running');
		expect(item.progress).toBe(45);
		expect(item.resultUrl).toBeNull();
		expect(item.finishedAt).toBeNull();
	});

	it('carries failReason of a failed task', () => {
		const item = ok(parseCallback(imageFailure()));
		expect(item.state).toBe('failed');
		expect(item.failReason).toBe('content policy violation');
		expect(item.progress).toBe(80);
	});

	it('accepts other action values and unknown status words (kept raw, state unknown)', () => {
		const item = ok(parseCallback({ ...imageSuccess(), action: 'UPSCALE', status: 'MODAL' }));
		expect(item.status).toBe('MODAL');
		expect(item.state).toBe('unknown');
		expect(item.progress).toBe(100); // given as 100% by the body
	});

	it('gives progress 100 to a success without progress, and none to a failure', () => {
		const { progress: _p, ...noProgress } = imageSuccess();
		expect(ok(parseCallback(noProgress)).progress).toBe(100);
		const { progress: _q, ...failedNoProgress } = imageFailure();
		expect(ok(parseCallback(failedNoProgress)).progress).toBeNull();
	});

	it('keeps unknown fields only in payload', () => {
		const body = { ...imageSuccess(), buttons: [{ customId: 'x' }], extra: 'y' };
		const item = ok(parseCallback(body));
		expect(item).not.toHaveProperty('buttons');
		expect(item).not.toHaveProperty('extra');
		expect(item.payload.buttons).toEqual([{ customId: 'x' }]);
	});

	it('treats null optional fields as not set', () => {
		const item = ok(
			parseCallback({ ...imageSuccess(), failReason: null, imageUrl: null, startTime: null }),
		);
		expect(item.failReason).toBeNull();
		expect(item.resultUrl).toBeNull();
		expect(item.startedAt).toBeNull();
	});

	it.each([
		['action', 42, 'action: must be a string, not number'],
		['status', 1, 'status: must be a string, not number'],
		['imageUrl', ['x'], 'imageUrl: must be a string, not array'],
		['progress', 50, 'progress: must be a string, not number'],
		['failReason', false, 'failReason: must be a string, not boolean'],
		['submitTime', '1700000000000', 'submitTime: must be a number, not string'],
		['startTime', 1.5, 'startTime: must be an integer, not float'],
		['finishTime', -1, 'finishTime: is out of range'],
		['finishTime', 9e15, 'finishTime: is out of range'],
		['prompt', {}, 'prompt: must be a string, not object'],
	])('rejects %s = %j', (field, value, expected) => {
		expect(reason(parseCallback({ ...imageSuccess(), [field]: value }))).toBe(expected);
	});

	it('requires a status', () => {
		const { status: _s, ...body } = imageSuccess();
		expect(reason(parseCallback(body))).toBe('status: is missing');
	});
});

describe('video task callbacks', () => {
	it('normalises a successful video callback (second timestamps)', () => {
		const body = videoSuccess();
		const item = ok(parseCallback(body));
		expect(item).toEqual({
			kind: 'video',
			taskId: 'vid-task-1',
			status: 'succeed',
			state: 'succeeded',
			progress: 100,
			resultUrl: 'https://cdn.example.com/vid-task-1.mp4',
			coverUrl: 'https://cdn.example.com/vid-task-1.png',
			title: null,
			duration: 8.5,
			failReason: null,
			submittedAt: null,
			startedAt: null,
			finishedAt: null,
			createdAt: '2023-11-14T22:13:20.000Z',
			updatedAt: '2023-11-14T22:15:50.000Z',
			payload: body,
		});
	});

	it('treats empty URLs of a processing task as not set', () => {
		const item = ok(parseCallback(videoProcessing()));
		expect(item.state).toBe('running');
		expect(item.progress).toBeNull();
		expect(item.resultUrl).toBeNull();
		expect(item.coverUrl).toBeNull();
	});

	it('recognises a video callback without type by its output fields or timestamps', () => {
		const { type: _t, ...noType } = videoSuccess();
		expect(ok(parseCallback(noType)).kind).toBe('video');
		expect(
			ok(parseCallback({ id: 'v', status: 'processing', created_at: 1_700_000_000 })).kind,
		).toBe('video');
		expect(ok(parseCallback({ id: 'v', status: 'succeed', type: 'VIDEO' })).kind).toBe('video');
	});

	it("takes a failed video's reason from the unlisted message field, and keeps it in payload", () => {
		const item = ok(parseCallback({ ...videoProcessing(), status: 'failed', message: 'boom' }));
		expect(item.state).toBe('failed');
		expect(item.failReason).toBe('boom');
		expect(item.payload.message).toBe('boom');
		expect(
			ok(parseCallback({ ...videoProcessing(), status: 'failed', error: { message: 'policy' } }))
				.failReason,
		).toBe('policy');
		expect(ok(parseCallback({ ...videoProcessing(), status: 'failed' })).failReason).toBeNull();
		// Only failures carry a reason: a message on a running task is not one.
		expect(ok(parseCallback({ ...videoProcessing(), message: 'rendering' })).failReason).toBeNull();
	});

	it.each([
		['output', 'x', 'output: must be a object, not string'],
		['output', [], 'output: must be a object, not array'],
		['created_at', 1.25, 'created_at: must be an integer, not float'],
		['updated_at', '1700000000', 'updated_at: must be a number, not string'],
		['updated_at', 1e13, 'updated_at: is out of range'],
	])('rejects %s = %j', (field, value, expected) => {
		expect(reason(parseCallback({ ...videoSuccess(), [field]: value }))).toBe(expected);
	});

	it.each([
		['video_url', 1, 'output.video_url: must be a string, not number'],
		['cover_url', true, 'output.cover_url: must be a string, not boolean'],
		['duration', '8', 'output.duration: must be a number, not string'],
		['duration', -2, 'output.duration: is out of range'],
	])('rejects output.%s = %j', (field, value, expected) => {
		const body = videoSuccess();
		expect(reason(parseCallback({ ...body, output: { ...body.output, [field]: value } }))).toBe(
			expected,
		);
	});
});

describe('music task callbacks', () => {
	it('normalises a complete music callback', () => {
		const body = musicComplete();
		const item = ok(parseCallback(body));
		expect(item).toEqual({
			kind: 'music',
			taskId: 'mus-task-1',
			status: 'complete',
			state: 'succeeded',
			progress: 100,
			resultUrl: 'https://cdn.example.com/mus-task-1.mp3',
			coverUrl: null,
			title: 'Northern Lights',
			duration: 184,
			failReason: null,
			submittedAt: null,
			startedAt: null,
			finishedAt: null,
			createdAt: null,
			updatedAt: null,
			payload: body,
		});
	});

	it('recognises music by output.title alone', () => {
		expect(
			ok(parseCallback({ id: 'm', status: 'processing', output: { title: 'Draft' } })).kind,
		).toBe('music');
	});

	it.each([
		['audio_url', 5, 'output.audio_url: must be a string, not number'],
		['title', ['a'], 'output.title: must be a string, not array'],
		['duration', null, null],
	])('checks output.%s = %j', (field, value, expected) => {
		const body = musicComplete();
		const result = parseCallback({ ...body, output: { ...body.output, [field]: value } });
		if (expected === null) expect(ok(result).duration).toBeNull();
		else expect(reason(result)).toBe(expected);
	});
});

describe('rejections common to every kind', () => {
	it.each([
		[null, 'body must be a JSON object'],
		[undefined, 'body must be a JSON object'],
		['{"id":"x"}', 'body must be a JSON object'],
		[42, 'body must be a JSON object'],
		[[imageSuccess()], 'body must be a JSON object'],
		[Buffer.from('{"id":"x"}'), 'body must be a JSON object'],
		[new Date(0), 'body must be a JSON object'],
	])('rejects %j', (body, expected) => {
		expect(reason(parseCallback(body))).toBe(expected);
	});

	it.each([
		[{ status: 'SUCCESS', action: 'IMAGINE' }, 'id: the task id is missing'],
		[{ id: null, status: 'succeed', type: 'video' }, 'id: the task id is missing'],
		[{ id: '', status: 'complete', output: { title: 't' } }, 'id: must be a non-empty string'],
		[{ id: '   ', status: 'SUCCESS' }, 'id: must be a non-empty string'],
		[{ id: 123, status: 'SUCCESS' }, 'id: must be a string, not number'],
		[{ id: { x: 1 }, status: 'SUCCESS' }, 'id: must be a string, not object'],
		[
			{ id: 'x'.repeat(CALLBACK_LIMITS.maxTaskIdLength + 1), status: 'SUCCESS' },
			`id: is longer than ${CALLBACK_LIMITS.maxTaskIdLength} characters`,
		],
	])('rejects a missing or invalid task id (case %#)', (body, expected) => {
		expect(reason(parseCallback(body))).toBe(expected);
	});

	it('rejects bodies that match no payload', () => {
		const expected = 'unrecognised callback shape: expected an image, video or music task callback';
		expect(reason(parseCallback({ id: 'x' }))).toBe(expected);
		expect(reason(parseCallback({ id: 'x', status: 'done' }))).toBe(expected);
		expect(reason(parseCallback({ id: 'x', status: 'complete', type: 'audio' }))).toBe(expected);
		expect(reason(parseCallback({ id: 'x', status: 'complete', output: { url: 'u' } }))).toBe(
			expected,
		);
	});

	it.each([
		['{"__proto__":{"polluted":true},"id":"x","status":"SUCCESS","action":"IMAGINE"}', '__proto__'],
		[
			'{"id":"x","status":"SUCCESS","action":"IMAGINE","constructor":{"prototype":{"p":1}}}',
			'constructor',
		],
		['{"id":"x","status":"succeed","type":"video","output":{"prototype":{}}}', 'prototype'],
		[
			'{"id":"x","status":"succeed","type":"video","output":{"a":[{"b":{"__proto__":{"p":1}}}]}}',
			'__proto__',
		],
		[
			'{"id":"x","status":"complete","output":{"title":"t","deep":[[[{"constructor":1}]]]}}',
			'constructor',
		],
	])('rejects prototype-pollution keys at any depth: %s', (json, key) => {
		const body: unknown = JSON.parse(json);
		expect(reason(parseCallback(body))).toBe(`forbidden key "${key}"`);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
		expect(({} as Record<string, unknown>).p).toBeUndefined();
	});
});

// Costs here are CPU time (cpuMs), compared with a baseline measured in the same test: the largest body the
// parser accepts, whose walk is bounded work. A hostile body must cost no more than a few of those; without
// the bound that stops the walk it would cost tens to hundreds of them. See expectWithin in ./timing.
/** CPU cost of parsing an accepted body of just under the value bound: the most a legitimate body costs. */
async function atLimitMs(): Promise<number> {
	const body = { ...musicComplete(), extra: new Array(CALLBACK_LIMITS.maxValues - 50).fill(0) };
	const { ms, result } = await cpuMs(() => parseCallback(body));
	expect(ok(result).kind).toBe('music');
	return ms;
}

describe('hostile structure stays cheap', () => {
	function nested(depth: number, leaf: unknown): unknown {
		let value: unknown = leaf;
		for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
		return value;
	}

	it('accepts nesting up to the bound and rejects one level more', () => {
		// The body is level 0, so `extra: nested(n)` puts its innermost container at level n.
		const atLimit = { ...imageSuccess(), extra: nested(CALLBACK_LIMITS.maxDepth, 1) };
		expect(ok(parseCallback(atLimit)).kind).toBe('image');
		const beyond = { ...imageSuccess(), extra: nested(CALLBACK_LIMITS.maxDepth + 1, 1) };
		expect(reason(parseCallback(beyond))).toBe('body is nested deeper than 32 levels');
	});

	it('rejects 100 000 levels of nesting quickly, without recursion', async () => {
		// Built from JSON text as n8n's body parser would; V8's JSON.parse is iterative.
		const json = `{"id":"x","status":"SUCCESS","extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
		const body: unknown = JSON.parse(json);
		const { ms, result } = await cpuMs(() => parseCallback(body));
		expect(reason(result)).toBe('body is nested deeper than 32 levels');
		expectWithin(ms, await atLimitMs(), 3, '100 000 levels of nesting');
	});

	it('rejects a 2 000 000-element array quickly', async () => {
		const body = { ...imageSuccess(), extra: new Array(2_000_000).fill({ k: 'v' }) };
		const { ms, result } = await cpuMs(() => parseCallback(body));
		expect(reason(result)).toBe('body has more than 10000 values');
		expectWithin(ms, await atLimitMs(), 3, 'a 2 000 000-element array');
	});

	it('rejects an object with 300 000 keys at the cost of listing its keys once', async () => {
		const extra: Record<string, number> = {};
		for (let i = 0; i < 300_000; i++) extra[`k${i}`] = i;
		const body = { ...videoSuccess(), extra };
		const { ms, result } = await cpuMs(() => parseCallback(body));
		expect(reason(result)).toBe('body has more than 10000 values');
		// Object.keys of the one big object is the only step that grows with the body.
		const { ms: keysOnly } = await cpuMs(() => Object.keys(extra).length);
		expectWithin(ms, keysOnly + (await atLimitMs()), 3, 'an object with 300 000 keys');
	});

	it('walks a body just under the value bound fast: linear in its size', async () => {
		const body = { ...musicComplete(), extra: new Array(CALLBACK_LIMITS.maxValues - 50).fill(0) };
		const { ms, result } = await cpuMs(() => parseCallback(body));
		expect(ok(result).kind).toBe('music');
		// A tenth of the values costs about a tenth (linear); a walk that grew with the square would cost 100×.
		const tenth = {
			...musicComplete(),
			extra: new Array((CALLBACK_LIMITS.maxValues - 50) / 10).fill(0),
		};
		const { ms: tenthMs, result: tenthResult } = await cpuMs(() => parseCallback(tenth));
		expect(ok(tenthResult).kind).toBe('music');
		expectWithin(ms, tenthMs, 10 * 3, 'a body of 9 950 values against one of 995');
	});

	it('refuses a huge string field quickly, wherever it is', async () => {
		for (const body of [
			{ ...imageSuccess(), prompt: 'x'.repeat(8 * 1024 * 1024) },
			{ ...videoSuccess(), output: { video_url: 'x'.repeat(8 * 1024 * 1024) } },
			{ ...musicComplete(), extra: [{ deep: 'x'.repeat(8 * 1024 * 1024) }] },
		]) {
			const { ms, result } = await cpuMs(() => parseCallback(body));
			expect(reason(result)).toBe(
				`body has a text value longer than ${CALLBACK_LIMITS.maxTextLength} characters`,
			);
			expectWithin(ms, await atLimitMs(), 3, 'an 8 MB string field');
		}
	});

	it('accepts every field at its size bound', () => {
		const url = `https://cdn.example.com/${'a'.repeat(CALLBACK_LIMITS.maxUrlLength - 24)}`;
		const image = ok(
			parseCallback({
				...imageSuccess(),
				id: 'i'.repeat(CALLBACK_LIMITS.maxTaskIdLength),
				status: 'SUCCESS',
				imageUrl: url,
				prompt: 'p\n'.repeat(CALLBACK_LIMITS.maxTextLength / 2),
				failReason: 'f'.repeat(CALLBACK_LIMITS.maxTextLength),
			}),
		);
		expect(image.resultUrl).toBe(url);
		const video = ok(
			parseCallback({ ...videoSuccess(), status: 's'.repeat(CALLBACK_LIMITS.maxWordLength) }),
		);
		expect(video.state).toBe('unknown');
	});

	it('refuses control characters in ids, status words and URLs, but not line breaks in free text', () => {
		for (const code of [0x00, 0x07, 0x0a, 0x0d, 0x1b, 0x1f, 0x7f, 0x85, 0x9f]) {
			const c = String.fromCharCode(code);
			expect(reason(parseCallback({ ...imageSuccess(), id: `img${c}1` }))).toBe(
				'id: must not contain control characters',
			);
			expect(reason(parseCallback({ ...musicComplete(), status: `complete${c}` }))).toBe(
				'status: must not contain control characters',
			);
			expect(
				reason(parseCallback({ ...videoSuccess(), output: { cover_url: `https://x/${c}` } })),
			).toBe('output.cover_url: must not contain control characters');
		}
		expect(
			ok(parseCallback({ ...imageFailure(), failReason: 'line one\nline two\ttabbed' })).failReason,
		).toBe('line one\nline two\ttabbed');
		// Non-ASCII text is not a control character.
		expect(ok(parseCallback({ ...imageSuccess(), id: 'tâche-中-😀' })).taskId).toBe('tâche-中-😀');
	});

	it('accepts a null-prototype object, as a form parser produces', () => {
		const body = Object.assign(Object.create(null) as Record<string, unknown>, musicComplete());
		expect(ok(parseCallback(body)).kind).toBe('music');
	});

	it('checkStructure reports nothing for a normal body', () => {
		expect(checkStructure(videoSuccess())).toBeUndefined();
		expect(checkStructure('text')).toBeUndefined();
	});
});

describe('helpers', () => {
	it.each([
		['0%', 0],
		['45%', 45],
		[' 99.5 % ', 99.5],
		['100%', 100],
		['60', 60],
		['101%', null],
		['-5%', null],
		['abc', null],
		['', null],
		[undefined, null],
		[50, 50],
		[NaN, null],
	])('parseProgress(%j) = %j', (input, expected) => {
		expect(parseProgress(input)).toBe(expected);
	});

	it('converts epoch values to ISO and treats 0 as not set', () => {
		expect(millisecondsToIso(1_700_000_000_000)).toBe('2023-11-14T22:13:20.000Z');
		expect(secondsToIso(1_700_000_000)).toBe('2023-11-14T22:13:20.000Z');
		expect(millisecondsToIso(0)).toBeNull();
		expect(secondsToIso(null)).toBeNull();
		expect(millisecondsToIso(9e15)).toBeNull();
	});

	it('detects kinds by fields only one payload has', () => {
		expect(detectCallbackKind({ id: 'a', status: 'SUCCESS' })).toBe('image');
		expect(detectCallbackKind({ id: 'a', status: 'x', prompt: 'p' })).toBe('image');
		expect(detectCallbackKind({ id: 'a', status: 'x', output: { audio_url: 'u' } })).toBe('music');
		expect(detectCallbackKind({ id: 'a', status: 'x', output: { cover_url: 'u' } })).toBe('video');
		// An explicit video type wins over fields of other kinds.
		expect(detectCallbackKind({ id: 'a', status: 'x', type: 'video', imageUrl: 'u' })).toBe(
			'video',
		);
		expect(detectCallbackKind({ id: 'a', status: 'x' })).toBeUndefined();
	});

	it('exports the three schemas for reuse', () => {
		expect(imageCallbackSchema.safeParse(imageSuccess()).success).toBe(true);
		expect(videoCallbackSchema.safeParse(videoSuccess()).success).toBe(true);
		expect(musicCallbackSchema.safeParse(musicComplete()).success).toBe(true);
		expect(musicCallbackSchema.safeParse({ id: 'm' }).success).toBe(false);
	});
});
