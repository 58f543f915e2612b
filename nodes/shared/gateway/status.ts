/**
 * One status vocabulary for every gateway task, whatever endpoint or callback reported it.
 * The gateway uses several words for the same thing (docs/gateway-interface.md, "Task status") (`completed` on query, `succeed` in video
 * callbacks, `complete` in music callbacks, `SUCCESS` in image callbacks); nodes and the
 * trigger only ever branch on the normalised `state`, and keep the raw word beside it.
 */
export type TaskState = 'queued' | 'running' | 'succeeded' | 'failed' | 'unknown';

const STATE_BY_STATUS: Record<string, TaskState> = {
	// Words docs/gateway-interface.md ("Task status") lists.
	not_start: 'queued',
	processing: 'running',
	in_progress: 'running',
	completed: 'succeeded',
	complete: 'succeeded',
	succeed: 'succeeded',
	success: 'succeeded',
	failure: 'failed',
	// Words the interface does not list but a gateway of this family plausibly sends (docs/gateway-interface.md,
	// "Decisions where the interface is silent"); mapping them
	// keeps a failed task from being waited on until the timeout (documented in the README).
	queued: 'queued',
	pending: 'queued',
	submitted: 'queued',
	running: 'running',
	succeeded: 'succeeded',
	failed: 'failed',
	fail: 'failed',
	error: 'failed',
	cancelled: 'failed',
	canceled: 'failed',
};

/** Maps any raw status word (any case, surrounding blanks ignored) to a normalised state. */
export function normaliseStatus(status: unknown): TaskState {
	if (typeof status !== 'string') return 'unknown';
	return STATE_BY_STATUS[status.trim().toLowerCase()] ?? 'unknown';
}

/** A final state ends a task: nothing changes after it. */
export function isFinalState(state: TaskState): boolean {
	return state === 'succeeded' || state === 'failed';
}
