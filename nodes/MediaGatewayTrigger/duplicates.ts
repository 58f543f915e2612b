/**
 * Ignore Duplicates for one request: the two memories of dedupe.ts (this process's, and the
 * workflow's static data) consulted and, once n8n has started the execution, written.
 *
 * Why two. Static data is read from the database for every request and saved without a lock, so two
 * requests handled at the same moment cannot see each other there; this process's memory sees every
 * request at once. Static data survives restarts and is shared by every process of a queue-mode setup.
 */
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { CallbackItem } from '../shared/gateway/callbacks';
import {
	DEDUPE_DEFAULTS,
	DEDUPE_MAX_ENTRIES_LIMIT,
	asDedupeStore,
	claimInFlight,
	createDedupeStore,
	dedupeKey,
	forgetProcessDedupeStore,
	mergeKeys,
	processDedupeStore,
	pruneDedupe,
	rememberKey,
	seenRecently,
} from './dedupe';
import type { DedupeLimits, DedupeStore, InFlightClaim } from './dedupe';

export type DuplicateCheck =
	/** Accepted recently: answer 200 without starting anything. */
	| { outcome: 'duplicate' }
	/** Another request of this process is starting the same callback right now: ask for a retry. */
	| { outcome: 'inFlight' }
	/**
	 * New: `claim` holds the key while this request starts it; `remember` records it in both memories
	 * and releases the claim, and must run only once the execution has started.
	 */
	| { outcome: 'new'; claim: InFlightClaim; remember: () => void };

/**
 * Looks the callback up in both memories (pruning them and restoring this process's keys that a
 * concurrent save by another process dropped from static data), and claims it when it is new.
 */
export function checkDuplicate(ctx: IWebhookFunctions, callback: CallbackItem): DuplicateCheck {
	// The key is built from the callback as sent, so every retry of it maps to the same key.
	const key = dedupeKey([callback.kind, callback.taskId, callback.status, callback.progress]);
	const scope = dedupeScope(ctx);
	const limits = dedupeLimits(ctx);
	const data = ctx.getWorkflowStaticData('node');
	const memory = processDedupeStore(scope);
	const stored = asDedupeStore(data.dedupe);
	const now = Date.now();
	pruneDedupe(memory, now, limits);
	const pruned = pruneDedupe(stored, now, limits) > 0;
	// Puts back this process's keys that a concurrent save by another process dropped.
	const restored = mergeKeys(stored, memory, now, limits) > 0;
	if (pruned || restored) data.dedupe = asStaticData(stored);
	if (seenRecently(memory, key, now, limits) || seenRecently(stored, key, now, limits)) {
		return { outcome: 'duplicate' };
	}
	const claim = claimInFlight(scope, key);
	if (!claim) return { outcome: 'inFlight' };
	return {
		outcome: 'new',
		claim,
		remember: () => {
			const at = Date.now();
			rememberKey(memory, key, at, limits);
			rememberKey(stored, key, at, limits);
			mergeKeys(stored, memory, at, limits);
			// Reassigning marks static data as changed, so n8n saves it before the answer goes out.
			data.dedupe = asStaticData(stored);
			claim.release();
		},
	};
}

/** Activation starts with empty memories (a reactivated workflow forgets what it accepted before). */
export function resetDuplicateMemory(ctx: IHookFunctions, data: IDataObject): void {
	data.dedupe = asStaticData(createDedupeStore());
	forgetProcessDedupeStore(dedupeScope(ctx));
}

/** Deactivation forgets both memories. */
export function dropDuplicateMemory(ctx: IHookFunctions, data: IDataObject): void {
	delete data.dedupe;
	forgetProcessDedupeStore(dedupeScope(ctx));
}

function asStaticData(value: DedupeStore): IDataObject {
	return value as unknown as IDataObject;
}

/** One memory per trigger node of a workflow. */
function dedupeScope(ctx: IWebhookFunctions | IHookFunctions): string {
	return `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}`;
}

/** The configured window and size, with the defaults for anything unusable. */
function dedupeLimits(ctx: IWebhookFunctions): DedupeLimits {
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const hours = Number(options.duplicateWindowHours ?? DEDUPE_DEFAULTS.maxAgeMs / 3_600_000);
	const size = Number(options.duplicateMemorySize ?? DEDUPE_DEFAULTS.maxEntries);
	return {
		maxAgeMs: Number.isFinite(hours) && hours > 0 ? hours * 3_600_000 : DEDUPE_DEFAULTS.maxAgeMs,
		maxEntries:
			Number.isFinite(size) && size >= 1
				? Math.min(Math.floor(size), DEDUPE_MAX_ENTRIES_LIMIT)
				: DEDUPE_DEFAULTS.maxEntries,
	};
}
