/**
 * The gateway's three callback payloads (image, video and music task callbacks), in code, and the
 * one function that turns an untrusted callback body into a normalised item. Used by the trigger
 * node and by the action nodes' "wait for callback" mode, so it knows nothing about filters,
 * authentication or duplicates.
 *
 * Policy (docs/gateway-interface.md, "Callbacks"): lenient on values the interface says may vary (action, status words,
 * unknown extra fields, `null` standing for "not set"), strict on shape (a field that is present has
 * the type the interface gives it;
 * the task id is a non-empty string). Unknown fields are kept only in `payload`.
 */
import { z } from 'zod/v3';
import type { ZodIssue } from 'zod/v3';

import { normaliseStatus } from './status';
import type { TaskState } from './status';

export const CALLBACK_KINDS = ['image', 'video', 'music'] as const;
export type CallbackKind = (typeof CALLBACK_KINDS)[number];

/**
 * Bounds of the structure walk. A real callback has about fifteen values and two levels; the
 * bounds only exist so a hostile body cannot make the walk (or anything downstream) expensive.
 * n8n itself caps the body size (N8N_PAYLOAD_SIZE_MAX, 16 MiB by default) before the node runs.
 */
export const CALLBACK_LIMITS = {
	/** Levels of nested objects/arrays below the body itself. */
	maxDepth: 32,
	/** Values (objects, arrays and primitives) counted across the whole body. */
	maxValues: 10_000,
	/** Characters of the task id: gateway ids are tens of characters; this keeps outputs and filters sane. */
	maxTaskIdLength: 256,
	/** Characters of a status word, `action` or `type` (the longest in docs/gateway-interface.md, "Task status", is 11). */
	maxWordLength: 64,
	/** Characters of a result or cover URL: signed CDN URLs run to a few hundred, rarely 2,000. */
	maxUrlLength: 8192,
	/** Characters of any other string anywhere in the body (prompt, failReason, title, unknown fields). */
	maxTextLength: 20_000,
	/** Characters of an object key anywhere in the body. */
	maxKeyLength: 256,
} as const;

/**
 * C0 and C1 control characters (NUL, line breaks, escape, DEL, …). Ids, status words and URLs never
 * contain them; a callback that does is not from the gateway, and such values would end up in logs,
 * filters and expressions downstream.
 */
export function hasControlCharacter(value: string): boolean {
	for (let index = 0; index < value.length; index++) {
		const code = value.charCodeAt(index);
		if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return true;
	}
	return false;
}

/**
 * Whether a Content-Type header names JSON (`application/json` or `application/<x>+json`, any
 * parameters). Callbacks are `application/json` (docs/gateway-interface.md, "Callbacks"); n8n would parse a form-encoded body
 * into fields that look like a callback, so anything else is refused before the body is read.
 */
export function isJsonContentType(header: unknown): boolean {
	const value = Array.isArray(header) ? undefined : header;
	if (typeof value !== 'string') return false;
	const mediaType = value.split(';', 1)[0].trim().toLowerCase();
	return (
		mediaType === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(mediaType)
	);
}

/** Keys that could reach an object's prototype if some later code merged the payload naively. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set([
	'__proto__',
	'constructor',
	'prototype',
]);

/** The statuses docs/gateway-interface.md ("Task status") lists for image tasks, exactly as written there. */
export const IMAGE_STATUSES = ['NOT_START', 'IN_PROGRESS', 'SUCCESS', 'FAILURE'] as const;

// Largest magnitude a JavaScript Date can hold; beyond it toISOString() throws.
const MAX_DATE_MS = 8.64e15;

/* ---------------------------------------------------------------------------------- schemas */

/** A single-line string: bounded, without control characters. */
function plain(max: number) {
	return z
		.string()
		.max(max, `is longer than ${max} characters`)
		.refine((value) => !hasControlCharacter(value), 'must not contain control characters');
}

const taskId = plain(CALLBACK_LIMITS.maxTaskIdLength).refine(
	(value) => value.trim().length > 0,
	'must be a non-empty string',
);
const status = plain(CALLBACK_LIMITS.maxWordLength);

// Optional fields accept `null` as "not set": gateways of this family serialise absent values so.
const optionalWord = plain(CALLBACK_LIMITS.maxWordLength).nullish();
const optionalUrl = plain(CALLBACK_LIMITS.maxUrlLength).nullish();
// Free text (prompts, reasons, titles) may hold line breaks; the structure walk bounds its length.
const optionalText = z.string().max(CALLBACK_LIMITS.maxTextLength).nullish();
const nonNegativeNumber = z.number().finite().nonnegative().nullish();
const epochMilliseconds = z.number().int().nonnegative().max(MAX_DATE_MS).nullish();
const epochSeconds = z
	.number()
	.int()
	.nonnegative()
	.max(MAX_DATE_MS / 1000)
	.nullish();

/** Image generation task callback (docs/gateway-interface.md, "Callbacks": image task callback). */
export const imageCallbackSchema = z.object({
	id: taskId,
	action: optionalWord,
	status,
	prompt: optionalText,
	imageUrl: optionalUrl,
	progress: optionalWord,
	failReason: optionalText,
	submitTime: epochMilliseconds,
	startTime: epochMilliseconds,
	finishTime: epochMilliseconds,
});

/** Video generation task callback (docs/gateway-interface.md, "Callbacks": video task callback). */
export const videoCallbackSchema = z.object({
	id: taskId,
	status,
	type: optionalWord,
	output: z
		.object({
			video_url: optionalUrl,
			cover_url: optionalUrl,
			duration: nonNegativeNumber,
		})
		.nullish(),
	created_at: epochSeconds,
	updated_at: epochSeconds,
});

/** Music generation task callback (docs/gateway-interface.md, "Callbacks": music task callback). */
export const musicCallbackSchema = z.object({
	id: taskId,
	status,
	output: z
		.object({
			audio_url: optionalUrl,
			title: optionalText,
			duration: nonNegativeNumber,
		})
		.nullish(),
});

// The id alone, checked first (with its field path, so the reason names it).
const idOnlySchema = z.object({ id: taskId });

export type ImageCallback = z.infer<typeof imageCallbackSchema>;
export type VideoCallback = z.infer<typeof videoCallbackSchema>;
export type MusicCallback = z.infer<typeof musicCallbackSchema>;

/* ----------------------------------------------------------------------------------- output */

/** The normalised item: the same keys for every kind, `null` where a kind has no such value. */
export interface CallbackItem {
	kind: CallbackKind;
	taskId: string;
	/** The status word exactly as the gateway sent it. */
	status: string;
	/** `status` mapped onto the one vocabulary of nodes/shared/status.ts. */
	state: TaskState;
	/** 0–100 when known; 100 for a successful final status that carries no progress. */
	progress: number | null;
	resultUrl: string | null;
	coverUrl: string | null;
	title: string | null;
	duration: number | null;
	failReason: string | null;
	submittedAt: string | null;
	startedAt: string | null;
	finishedAt: string | null;
	createdAt: string | null;
	updatedAt: string | null;
	/** The body as received, including fields this module does not know. */
	payload: Record<string, unknown>;
}

export type ParseCallbackResult = { ok: true; item: CallbackItem } | { ok: false; reason: string };

/* ---------------------------------------------------------------------------------- helpers */

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function has(object: Record<string, unknown>, key: string): boolean {
	return Object.prototype.hasOwnProperty.call(object, key);
}

/**
 * Walks the body without recursion (so depth cannot overflow the stack) and stops at the first
 * forbidden key, at the depth bound, at the value bound, or at a key or string longer than any real
 * callback has, whichever comes first. The work is bounded by `maxValues`, not by the size of the body.
 */
export function checkStructure(body: unknown): string | undefined {
	// Paths are not tracked: keys come from the caller and may be huge; the reason names only the
	// (fixed) forbidden key, never caller data.
	const stack: Array<{ value: object; depth: number }> = [];
	if (typeof body === 'object' && body !== null) stack.push({ value: body, depth: 0 });
	let counted = 1;
	while (stack.length > 0) {
		const { value, depth } = stack.pop()!;
		if (depth > CALLBACK_LIMITS.maxDepth) {
			return `body is nested deeper than ${CALLBACK_LIMITS.maxDepth} levels`;
		}
		const children: unknown[] = [];
		if (Array.isArray(value)) {
			counted += value.length;
			if (counted > CALLBACK_LIMITS.maxValues)
				return `body has more than ${CALLBACK_LIMITS.maxValues} values`;
			for (let index = 0; index < value.length; index++) children.push(value[index]);
		} else {
			const keys = Object.keys(value);
			counted += keys.length;
			if (counted > CALLBACK_LIMITS.maxValues)
				return `body has more than ${CALLBACK_LIMITS.maxValues} values`;
			for (const key of keys) {
				if (FORBIDDEN_KEYS.has(key)) return `forbidden key "${key}"`;
				if (key.length > CALLBACK_LIMITS.maxKeyLength) {
					return `body has a key longer than ${CALLBACK_LIMITS.maxKeyLength} characters`;
				}
				children.push((value as Record<string, unknown>)[key]);
			}
		}
		for (const child of children) {
			if (typeof child === 'object' && child !== null)
				stack.push({ value: child, depth: depth + 1 });
			else if (typeof child === 'string' && child.length > CALLBACK_LIMITS.maxTextLength) {
				return `body has a text value longer than ${CALLBACK_LIMITS.maxTextLength} characters`;
			}
		}
	}
	return undefined;
}

const IMAGE_MARKERS = [
	'action',
	'imageUrl',
	'progress',
	'failReason',
	'submitTime',
	'startTime',
	'finishTime',
	'prompt',
] as const;

/**
 * Decides which payload a body is, from fields only that payload has. Order: `type: "video"`;
 * then music output fields (`output.audio_url`, `output.title`); then video-only fields
 * (`output.video_url`, `output.cover_url`, `created_at`, `updated_at`); then image-only fields
 * (`action`, `imageUrl`, `progress`, `failReason`, `submitTime`, `startTime`, `finishTime`,
 * `prompt`) or an image status word (NOT_START, IN_PROGRESS, SUCCESS, FAILURE).
 */
export function detectCallbackKind(body: Record<string, unknown>): CallbackKind | undefined {
	const type = body.type;
	if (typeof type === 'string' && type.trim().toLowerCase() === 'video') return 'video';
	const output = isPlainObject(body.output) ? body.output : undefined;
	if (output && (has(output, 'audio_url') || has(output, 'title'))) return 'music';
	if (output && (has(output, 'video_url') || has(output, 'cover_url'))) return 'video';
	if (has(body, 'created_at') || has(body, 'updated_at')) return 'video';
	if (IMAGE_MARKERS.some((key) => has(body, key))) return 'image';
	if ((IMAGE_STATUSES as readonly unknown[]).includes(body.status)) return 'image';
	return undefined;
}

/** Reads a percentage such as `"45%"` (or a bare `"45"`); anything else, or above 100, is unknown. */
export function parseProgress(value: unknown): number | null {
	if (typeof value === 'number')
		return Number.isFinite(value) && value >= 0 && value <= 100 ? value : null;
	if (typeof value !== 'string') return null;
	const match = /^\s*(\d{1,3}(?:\.\d+)?)\s*%?\s*$/.exec(value);
	if (!match) return null;
	const number = Number(match[1]);
	return number <= 100 ? number : null;
}

/** Epoch milliseconds to ISO; 0 (or nothing) means "not happened yet". */
export function millisecondsToIso(value: number | null | undefined): string | null {
	if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_DATE_MS)
		return null;
	return new Date(value).toISOString();
}

/** Epoch seconds to ISO; 0 (or nothing) means "not happened yet". */
export function secondsToIso(value: number | null | undefined): string | null {
	return typeof value === 'number' ? millisecondsToIso(value * 1000) : null;
}

function text(value: string | null | undefined): string | null {
	return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function describeIssue(issue: ZodIssue): string {
	const field = issue.path.map(String).join('.') || 'body';
	if (issue.code === 'invalid_type') {
		return issue.received === 'undefined'
			? `${field}: is missing`
			: `${field}: must be ${issue.expected === 'integer' ? 'an integer' : `a ${issue.expected}`}, not ${issue.received}`;
	}
	if (issue.code === 'too_big' || issue.code === 'too_small') {
		return issue.type === 'string' ? `${field}: ${issue.message}` : `${field}: is out of range`;
	}
	return `${field}: ${issue.message}`;
}

/**
 * Video and music callbacks have no failure field (docs/gateway-interface.md, "Decisions where the interface is silent"); a failed task's reason is taken
 * from where gateways of this family put it, so a workflow can branch on it without digging.
 */
function unlistedFailReason(payload: Record<string, unknown>): string | null {
	const error = payload.error;
	for (const candidate of [
		payload.failReason,
		payload.fail_reason,
		error && typeof error === 'object' ? (error as Record<string, unknown>).message : error,
		payload.message,
	]) {
		if (typeof candidate === 'string' && candidate.trim()) return candidate.trim().slice(0, 1000);
	}
	return null;
}

function baseItem(
	kind: CallbackKind,
	id: string,
	status: string,
	payload: Record<string, unknown>,
): CallbackItem {
	const state = normaliseStatus(status);
	return {
		kind,
		taskId: id,
		status,
		state,
		progress: null,
		resultUrl: null,
		coverUrl: null,
		title: null,
		duration: null,
		failReason: state === 'failed' ? unlistedFailReason(payload) : null,
		submittedAt: null,
		startedAt: null,
		finishedAt: null,
		createdAt: null,
		updatedAt: null,
		payload,
	};
}

function fromImage(data: ImageCallback, payload: Record<string, unknown>): CallbackItem {
	return {
		...baseItem('image', data.id, data.status, payload),
		progress: parseProgress(data.progress),
		resultUrl: text(data.imageUrl),
		failReason:
			text(data.failReason) ??
			(normaliseStatus(data.status) === 'failed' ? unlistedFailReason(payload) : null),
		submittedAt: millisecondsToIso(data.submitTime),
		startedAt: millisecondsToIso(data.startTime),
		finishedAt: millisecondsToIso(data.finishTime),
	};
}

function fromVideo(data: VideoCallback, payload: Record<string, unknown>): CallbackItem {
	return {
		...baseItem('video', data.id, data.status, payload),
		resultUrl: text(data.output?.video_url),
		coverUrl: text(data.output?.cover_url),
		duration: data.output?.duration ?? null,
		createdAt: secondsToIso(data.created_at),
		updatedAt: secondsToIso(data.updated_at),
	};
}

function fromMusic(data: MusicCallback, payload: Record<string, unknown>): CallbackItem {
	return {
		...baseItem('music', data.id, data.status, payload),
		resultUrl: text(data.output?.audio_url),
		title: text(data.output?.title),
		duration: data.output?.duration ?? null,
	};
}

/**
 * Checks an untrusted callback body and returns the normalised item, or a short reason that is
 * safe to send back to the caller (it names fields, never echoes values).
 */
export function parseCallback(body: unknown): ParseCallbackResult {
	// Only what a JSON or form parser produces; a Buffer or other class instance is not a callback.
	if (
		!isPlainObject(body) ||
		![Object.prototype, null].includes(Object.getPrototypeOf(body) as object | null)
	) {
		return { ok: false, reason: 'body must be a JSON object' };
	}
	const structureProblem = checkStructure(body);
	if (structureProblem) return { ok: false, reason: structureProblem };

	// The id is checked before the shape so the most common mistake gets the clearest message.
	const id = body.id;
	if (id === undefined || id === null) return { ok: false, reason: 'id: the task id is missing' };
	const idCheck = idOnlySchema.safeParse(body);
	if (!idCheck.success) return { ok: false, reason: describeIssue(idCheck.error.issues[0]) };

	const kind = detectCallbackKind(body);
	if (!kind) {
		return {
			ok: false,
			reason: 'unrecognised callback shape: expected an image, video or music task callback',
		};
	}

	let item: CallbackItem;
	if (kind === 'image') {
		const parsed = imageCallbackSchema.safeParse(body);
		if (!parsed.success) return { ok: false, reason: describeIssue(parsed.error.issues[0]) };
		item = fromImage(parsed.data, body);
	} else if (kind === 'video') {
		const parsed = videoCallbackSchema.safeParse(body);
		if (!parsed.success) return { ok: false, reason: describeIssue(parsed.error.issues[0]) };
		item = fromVideo(parsed.data, body);
	} else {
		const parsed = musicCallbackSchema.safeParse(body);
		if (!parsed.success) return { ok: false, reason: describeIssue(parsed.error.issues[0]) };
		item = fromMusic(parsed.data, body);
	}
	// A finished task is complete even when the gateway leaves progress out.
	if (item.state === 'succeeded' && item.progress === null) item.progress = 100;
	return { ok: true, item };
}
