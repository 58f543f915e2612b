/**
 * A bounded memory of recently accepted keys, kept in a plain object that lives in workflow static
 * data (so n8n persists it with the workflow). Pure: every function takes the store and `now`, does
 * no I/O and reads no clock, so tests can drive time.
 *
 * Keys are hashes of their parts, so a store of N entries costs about N × 50 bytes of static data
 * whatever the task ids look like.
 */
import { createHash } from 'node:crypto';

export interface DedupeStore {
	/** Format version, so a later change of shape can discard an old store instead of misreading it. */
	v: 1;
	/** Hashed key → epoch milliseconds at which it was accepted. */
	entries: Record<string, number>;
}

export interface DedupeLimits {
	/** Most keys kept; the oldest go first when a new key needs room. */
	maxEntries: number;
	/** Keys older than this are forgotten. */
	maxAgeMs: number;
}

export const DEDUPE_DEFAULTS: DedupeLimits = { maxEntries: 1000, maxAgeMs: 24 * 60 * 60 * 1000 };
export const DEDUPE_MAX_ENTRIES_LIMIT = 10_000;

export function createDedupeStore(): DedupeStore {
	return { v: 1, entries: {} };
}

/**
 * Returns the store held in static data when it has the expected shape, else a fresh store
 * (first use, or data written by something else). Malformed entries are dropped.
 */
export function asDedupeStore(value: unknown): DedupeStore {
	if (typeof value !== 'object' || value === null) return createDedupeStore();
	const candidate = value as Partial<DedupeStore>;
	if (candidate.v !== 1 || typeof candidate.entries !== 'object' || candidate.entries === null) {
		return createDedupeStore();
	}
	const entries = candidate.entries;
	for (const key of Object.keys(entries)) {
		const at = entries[key];
		if (typeof at !== 'number' || !Number.isFinite(at)) delete entries[key];
	}
	return candidate as DedupeStore;
}

/** A fixed-length key for the given parts (JSON-encoded first, so no separator can be forged). */
export function dedupeKey(parts: ReadonlyArray<string | number | null>): string {
	return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

function hasKey(store: DedupeStore, key: string): boolean {
	return Object.prototype.hasOwnProperty.call(store.entries, key);
}

/**
 * Whether a key accepted at `at` still counts: not older than the age window, and not dated further
 * ahead than it either (a clock that jumped back would otherwise keep such keys forever).
 */
function inWindow(at: number, now: number, limits: DedupeLimits): boolean {
	return now - at <= limits.maxAgeMs && at - now <= limits.maxAgeMs;
}

/** Forgets keys outside the age window (see inWindow). Returns how many were removed. */
export function pruneDedupe(store: DedupeStore, now: number, limits: DedupeLimits): number {
	let removed = 0;
	for (const key of Object.keys(store.entries)) {
		if (!inWindow(store.entries[key], now, limits)) {
			delete store.entries[key];
			removed++;
		}
	}
	return removed;
}

/** True when the key was accepted within the age window. Does not change the store. */
export function seenRecently(
	store: DedupeStore,
	key: string,
	now: number,
	limits: DedupeLimits,
): boolean {
	return hasKey(store, key) && inWindow(store.entries[key], now, limits);
}

/** The size limit as a whole number of at least 1. */
function maxEntries(limits: DedupeLimits): number {
	return Math.max(1, Math.floor(limits.maxEntries));
}

/** Deletes the oldest keys until at most `keep` remain. */
function keepNewest(store: DedupeStore, keep: number): void {
	const keys = Object.keys(store.entries);
	if (keys.length <= keep) return;
	// Sorting by time (not insertion order) because a database may store JSON keys reordered.
	keys.sort((a, b) => store.entries[a] - store.entries[b]);
	for (const old of keys.slice(0, keys.length - keep)) delete store.entries[old];
}

/** Records a key as accepted at `now`, evicting the oldest keys so at most `maxEntries` remain. */
export function rememberKey(
	store: DedupeStore,
	key: string,
	now: number,
	limits: DedupeLimits,
): void {
	delete store.entries[key];
	keepNewest(store, maxEntries(limits) - 1);
	store.entries[key] = now;
}

/**
 * The one call the trigger makes: prunes, then reports a duplicate, or remembers the key.
 * `changed` says whether the store must be written back.
 */
export function checkAndRemember(
	store: DedupeStore,
	key: string,
	now: number,
	limits: DedupeLimits,
): { duplicate: boolean; changed: boolean } {
	const pruned = pruneDedupe(store, now, limits) > 0;
	if (seenRecently(store, key, now, limits)) return { duplicate: true, changed: pruned };
	rememberKey(store, key, now, limits);
	return { duplicate: false, changed: true };
}

/**
 * Copies into `target` the keys of `source` it lacks (within the age window), then trims `target` to
 * `maxEntries`, oldest first. Returns how many keys were copied, so the caller knows to write back.
 *
 * Why: static data is one JSON value saved whole without a lock, so when two processes (queue mode's
 * webhook processors) answer callbacks of one workflow at the same moment, the later save drops the
 * keys the other just added. Each process writes its own accepted keys back with every later save, so
 * a dropped key returns as soon as its process answers any callback of that workflow again.
 */
export function mergeKeys(
	target: DedupeStore,
	source: DedupeStore,
	now: number,
	limits: DedupeLimits,
): number {
	let copied = 0;
	for (const key of Object.keys(source.entries)) {
		const at = source.entries[key];
		if (hasKey(target, key) || !inWindow(at, now, limits)) continue;
		target.entries[key] = at;
		copied++;
	}
	if (copied > 0) keepNewest(target, maxEntries(limits));
	return copied;
}

/** Number of keys currently held (expired ones included until the next prune). */
export function dedupeSize(store: DedupeStore): number {
	return Object.keys(store.entries).length;
}

/**
 * Keys this process accepted, per trigger node. Static data is read from the database for every
 * request and saved without a lock, so two requests handled at the same moment cannot see each
 * other there; in one process this map sees every request at once (check and remember run
 * without an await in between). Lost on restart; static data covers that case.
 */
const processStores = new Map<string, DedupeStore>();

export function processDedupeStore(scope: string): DedupeStore {
	let store = processStores.get(scope);
	if (!store) {
		store = createDedupeStore();
		processStores.set(scope, store);
	}
	return store;
}

export function forgetProcessDedupeStore(scope: string): void {
	processStores.delete(scope);
	inFlight.delete(scope);
}

/**
 * Keys this process has accepted but whose execution n8n has not confirmed as started yet, per
 * trigger node. A second delivery of such a key is neither new (it would start a second execution)
 * nor a duplicate (the first start may still fail, and its 200 must then not have been given to
 * anyone): the trigger asks the caller to retry later.
 */
const inFlight = new Map<string, Map<string, object>>();

/** One request's hold on a key; releasing it never releases a later request's hold on the same key. */
export interface InFlightClaim {
	release(): void;
}

/** Claims a key for one request; undefined when another request of this process holds it. */
export function claimInFlight(scope: string, key: string): InFlightClaim | undefined {
	let keys = inFlight.get(scope);
	if (!keys) {
		keys = new Map();
		inFlight.set(scope, keys);
	}
	if (keys.has(key)) return undefined;
	const owner = {};
	keys.set(key, owner);
	return {
		release: () => {
			const current = inFlight.get(scope);
			if (current?.get(key) !== owner) return;
			current.delete(key);
			if (current.size === 0) inFlight.delete(scope);
		},
	};
}
