/**
 * Confirming a final video callback with the gateway before it starts anything. The gateway does not
 * sign its callbacks, so a body posted to the trigger's URL proves nothing; reading the task with the
 * user's API key (`GET /v1/videos/{id}`, free, creates nothing) does. The output then carries what
 * the gateway says, not what the caller wrote.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { CallbackItem } from '../shared/gateway/callbacks';
import { isFinalState, normaliseStatus } from '../shared/gateway/status';
import { failureReason, fetchVideoTask } from '../shared/videoTask/task';
import type { VideoTask } from '../shared/videoTask/task';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../shared/transport/retry';

/**
 * How long the confirmation may take (exported as an object so tests can shorten it). The gateway wants its 200 within 5 s, and after the
 * confirmation n8n still has to create the execution; a gateway slower than this gets 503 and sends
 * the callback again (after 10, 30 and 60 s).
 */
export const confirmPolicy: { timeoutMs: number; retry: RetryPolicy } = {
	timeoutMs: 3000,
	retry: DEFAULT_RETRY_POLICY,
};

/** The trigger's output item: the callback, plus whether the gateway confirmed it. */
export interface TriggerItem extends CallbackItem {
	/** True when the gateway confirmed this callback (final video callbacks with a credential). */
	confirmed: boolean;
	/** The gateway's `video` object (url, duration, width, height) of a confirmed callback, else null. */
	video: IDataObject | null;
}

export type Confirmation =
	| { ok: true; item: TriggerItem }
	| {
			ok: false;
			/** 403: the gateway does not vouch for it; 409: not finished yet; 503: could not ask. */
			code: 403 | 409 | 503;
			reason: string;
	  };

const TIMED_OUT = Symbol('timed out');
const DEADLINE_SLICE_MS = 50;

function httpCodeOf(error: unknown): string | undefined {
	const code = (error as { httpCode?: unknown } | null)?.httpCode;
	return typeof code === 'string' ? code : undefined;
}

function text(value: unknown): string | null {
	return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function finiteNumber(value: unknown): number | null {
	return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function secondsToIso(value: unknown): string | null {
	const seconds = finiteNumber(value);
	return seconds !== null && seconds > 0 && seconds < 8.64e12
		? new Date(seconds * 1000).toISOString()
		: null;
}

/** The callback item rewritten with the gateway's own view of the task. */
export function confirmedItem(item: CallbackItem, task: VideoTask): TriggerItem {
	const state = normaliseStatus(task.status);
	const video = task.video && typeof task.video === 'object' ? task.video : null;
	return {
		...item,
		status: String(task.status),
		state,
		progress: state === 'succeeded' ? 100 : item.progress,
		resultUrl: text(video?.url),
		// The task query shows no cover URL; one the caller wrote is not taken on trust.
		coverUrl: text(video?.cover_url) ?? text(task.cover_url),
		duration: finiteNumber(video?.duration),
		failReason: state === 'failed' ? (failureReason(task) ?? null) : null,
		createdAt: secondsToIso(task.created_at) ?? item.createdAt,
		updatedAt: secondsToIso(task.updated_at) ?? item.updatedAt,
		confirmed: true,
		video,
	};
}

/**
 * Asks the gateway about the callback's task, within `timeoutMs`. Never throws: every outcome is an
 * answer for the caller. Reasons name no value the caller sent and nothing about the credential.
 */
export async function confirmVideoCallback(
	ctx: IWebhookFunctions,
	item: CallbackItem,
	timeoutMs = confirmPolicy.timeoutMs,
): Promise<Confirmation> {
	// gatewayRequest stops retrying and aborts its request when the context's cancel signal fires; a
	// webhook context has no execution to cancel, so this view of it lends the deadline's signal.
	const deadline = new AbortController();
	const bounded = Object.assign(Object.create(ctx) as IWebhookFunctions, {
		getExecutionCancelSignal: () => deadline.signal,
	});
	let answered = false;
	const request = fetchVideoTask(bounded, 0, item.taskId, { retry: confirmPolicy.retry }).then(
		(task) => ({ task }),
		(error: unknown) => ({ error }),
	);
	void request.finally(() => (answered = true));
	// The deadline sleeps in short slices and stops once the gateway has answered, so no timer outlives
	// the request by more than a slice.
	const deadlinePassed = async (): Promise<typeof TIMED_OUT> => {
		const until = Date.now() + timeoutMs;
		for (let left = timeoutMs; left > 0 && !answered; left = until - Date.now()) {
			await sleep(Math.min(left, DEADLINE_SLICE_MS));
		}
		return TIMED_OUT;
	};
	const outcome = await Promise.race([request, deadlinePassed()]);
	if (outcome === TIMED_OUT) {
		deadline.abort();
		return {
			ok: false,
			code: 503,
			reason: `the gateway did not confirm the callback within ${timeoutMs / 1000} s; retry later`,
		};
	}
	if ('error' in outcome) {
		if (httpCodeOf(outcome.error) === '404') {
			return {
				ok: false,
				code: 403,
				reason: 'callback not confirmed: the gateway has no such video task',
			};
		}
		return {
			ok: false,
			code: 503,
			reason: 'the gateway could not be asked to confirm the callback; retry later',
		};
	}
	const task = outcome.task;
	if (
		typeof task !== 'object' ||
		task === null ||
		(task.id !== undefined && String(task.id) !== item.taskId)
	) {
		return {
			ok: false,
			code: 403,
			reason: 'callback not confirmed: the gateway answered for another task',
		};
	}
	if (!isFinalState(normaliseStatus(task.status))) {
		return {
			ok: false,
			code: 409,
			reason: 'callback not confirmed: the gateway reports the task as not finished',
		};
	}
	return { ok: true, item: confirmedItem(item, task) };
}
