import { ObservableObject } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import {
	claimInFlight,
	forgetProcessDedupeStore,
	DEDUPE_DEFAULTS,
	asDedupeStore,
	checkAndRemember,
	createDedupeStore,
	dedupeKey,
	dedupeSize,
	mergeKeys,
	pruneDedupe,
	rememberKey,
	seenRecently,
} from '../../nodes/MediaGatewayTrigger/dedupe';
import type { DedupeLimits } from '../../nodes/MediaGatewayTrigger/dedupe';
import { cpuMs, expectWithin } from './timing';

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;
const limits: DedupeLimits = { maxEntries: 5, maxAgeMs: 24 * HOUR };

describe('dedupeKey', () => {
	it('is fixed-length and differs when any part differs, progress included', () => {
		const base = dedupeKey(['image', 'task-1', 'IN_PROGRESS', 40]);
		expect(base).toMatch(/^[0-9a-f]{32}$/);
		expect(dedupeKey(['image', 'task-1', 'IN_PROGRESS', 40])).toBe(base);
		expect(dedupeKey(['image', 'task-1', 'IN_PROGRESS', 50])).not.toBe(base);
		expect(dedupeKey(['image', 'task-1', 'IN_PROGRESS', null])).not.toBe(base);
		expect(dedupeKey(['image', 'task-1', 'SUCCESS', 40])).not.toBe(base);
		expect(dedupeKey(['video', 'task-1', 'IN_PROGRESS', 40])).not.toBe(base);
		expect(dedupeKey(['image', 'task-2', 'IN_PROGRESS', 40])).not.toBe(base);
		expect(dedupeKey(['x'.repeat(100_000), 'y', 'z', 1])).toHaveLength(32);
	});

	it('cannot be forged by moving a separator between parts', () => {
		expect(dedupeKey(['image', 'a|b', 'c', 1])).not.toBe(dedupeKey(['image', 'a', 'b|c', 1]));
		expect(dedupeKey(['image', 'a","b', 'c', 1])).not.toBe(dedupeKey(['image', 'a', 'b","c', 1]));
	});
});

describe('checkAndRemember', () => {
	it('accepts a key once, then reports it as a duplicate within the window', () => {
		const store = createDedupeStore();
		expect(checkAndRemember(store, 'k', T0, limits)).toEqual({ duplicate: false, changed: true });
		expect(checkAndRemember(store, 'k', T0 + 10_000, limits)).toEqual({
			duplicate: true,
			changed: false,
		});
		expect(checkAndRemember(store, 'k', T0 + 24 * HOUR, limits).duplicate).toBe(true);
	});

	it('forgets a key after the age window and accepts it again', () => {
		const store = createDedupeStore();
		checkAndRemember(store, 'k', T0, limits);
		expect(checkAndRemember(store, 'k', T0 + 24 * HOUR + 1, limits)).toEqual({
			duplicate: false,
			changed: true,
		});
		expect(store.entries.k).toBe(T0 + 24 * HOUR + 1);
	});

	it('prunes expired keys of other tasks on the way', () => {
		const store = createDedupeStore();
		checkAndRemember(store, 'old', T0, limits);
		checkAndRemember(store, 'fresh', T0 + 23 * HOUR, limits);
		const result = checkAndRemember(store, 'fresh', T0 + 25 * HOUR, limits);
		expect(result).toEqual({ duplicate: true, changed: true });
		expect(Object.keys(store.entries)).toEqual(['fresh']);
	});

	it('keeps at most maxEntries keys, evicting the oldest first', () => {
		const store = createDedupeStore();
		for (let i = 0; i < 8; i++) checkAndRemember(store, `k${i}`, T0 + i * 1000, limits);
		expect(dedupeSize(store)).toBe(5);
		expect(Object.keys(store.entries).sort()).toEqual(['k3', 'k4', 'k5', 'k6', 'k7']);
		// An evicted key is no longer remembered: it passes again.
		expect(checkAndRemember(store, 'k0', T0 + 9000, limits).duplicate).toBe(false);
		expect(seenRecently(store, 'k3', T0 + 9000, limits)).toBe(false);
	});

	it('evicts by time, not by key order (a database may reorder JSON keys)', () => {
		const store = createDedupeStore();
		store.entries = { zz: T0 + 3, aa: T0 + 1, mm: T0 + 2 };
		rememberKey(store, 'new', T0 + 4, { maxEntries: 3, maxAgeMs: HOUR });
		expect(Object.keys(store.entries).sort()).toEqual(['mm', 'new', 'zz']);
	});

	it('shrinks at once when the configured size is lowered', () => {
		const store = createDedupeStore();
		for (let i = 0; i < 50; i++)
			rememberKey(store, `k${i}`, T0 + i, { maxEntries: 100, maxAgeMs: HOUR });
		rememberKey(store, 'last', T0 + 100, { maxEntries: 10, maxAgeMs: HOUR });
		expect(dedupeSize(store)).toBe(10);
		expect(store.entries.last).toBe(T0 + 100);
		expect(store.entries.k49).toBe(T0 + 49);
		expect(store.entries.k40).toBeUndefined();
	});

	it('stays bounded and fast over 20 000 distinct callbacks with the default limits', async () => {
		const store = createDedupeStore();
		const { ms } = await cpuMs(() => {
			for (let i = 0; i < 20_000; i++) {
				checkAndRemember(
					store,
					dedupeKey(['video', `task-${i}`, 'succeed', 100]),
					T0 + i,
					DEDUPE_DEFAULTS,
				);
			}
		}, 1);
		expect(dedupeSize(store)).toBe(DEDUPE_DEFAULTS.maxEntries);
		// Fast: each call costs about what it cannot avoid, hashing the key and ordering the full store's keys
		// by time once, measured beside it (CPU time, so a busy machine moves both alike); not a growing store
		// or a quadratic eviction, which would cost hundreds of times that.
		const { ms: unavoidableMs } = await cpuMs(() => {
			for (let i = 0; i < 20_000; i++) {
				dedupeKey(['video', `task-${i}`, 'succeed', 100]);
				Object.keys(store.entries).sort((a, b) => store.entries[a] - store.entries[b]);
			}
		}, 1);
		expectWithin(ms, unavoidableMs, 6, '20 000 callbacks against their unavoidable work', 20);
		// About 50 bytes per key in static data.
		expect(JSON.stringify(store).length).toBeLessThan(DEDUPE_DEFAULTS.maxEntries * 60);
	});

	it('drops keys dated far in the future (clock jumped back)', () => {
		const store = createDedupeStore();
		store.entries.future = T0 + 48 * HOUR;
		expect(pruneDedupe(store, T0, limits)).toBe(1);
		expect(seenRecently(store, 'future', T0, limits)).toBe(false);
	});
});

describe('mergeKeys', () => {
	it('copies the keys the target lacks and reports how many', () => {
		const target = { v: 1 as const, entries: { a: T0, b: T0 + 1 } };
		const source = { v: 1 as const, entries: { b: T0 + 5, c: T0 + 2 } };
		expect(mergeKeys(target, source, T0 + 10, limits)).toBe(1);
		// An existing key keeps its own time; the copied one keeps the source's.
		expect(target.entries).toEqual({ a: T0, b: T0 + 1, c: T0 + 2 });
		expect(mergeKeys(target, source, T0 + 10, limits)).toBe(0);
	});

	it('skips expired keys and trims to the size limit, oldest first', () => {
		const target = { v: 1 as const, entries: { a: T0 + 1, b: T0 + 2, c: T0 + 3, d: T0 + 4 } };
		const source = { v: 1 as const, entries: { old: T0 - 25 * HOUR, e: T0 + 5, f: T0 + 6 } };
		expect(mergeKeys(target, source, T0 + 10, limits)).toBe(2);
		expect(Object.keys(target.entries).sort()).toEqual(['b', 'c', 'd', 'e', 'f']);
	});
});

describe('asDedupeStore', () => {
	it('starts fresh on anything that is not a store', () => {
		for (const value of [
			undefined,
			null,
			'x',
			5,
			[],
			{},
			{ v: 2, entries: {} },
			{ v: 1, entries: null },
		]) {
			expect(asDedupeStore(value)).toEqual({ v: 1, entries: {} });
		}
	});

	it('keeps a valid store (same object) and drops malformed entries', () => {
		const stored = { v: 1, entries: { good: T0, bad: 'x', worse: null, nan: NaN } };
		const store = asDedupeStore(stored);
		expect(store).toBe(stored);
		expect(store.entries).toEqual({ good: T0 });
	});

	it('survives a JSON round trip, as n8n stores static data', () => {
		const store = createDedupeStore();
		checkAndRemember(store, 'k', T0, limits);
		const reloaded = asDedupeStore(JSON.parse(JSON.stringify(store)));
		expect(checkAndRemember(reloaded, 'k', T0 + 1000, limits).duplicate).toBe(true);
	});

	it('works on n8n observable static data and marks it changed', () => {
		// What Workflow does with static data loaded from the database.
		const root = ObservableObject.create(
			{ 'node:Media Gateway Trigger': { dedupe: { v: 1, entries: { a: T0 } } } } as IDataObject,
			undefined,
			{ ignoreEmptyOnFirstChild: true },
		);
		const nodeData = root['node:Media Gateway Trigger'] as IDataObject;
		expect(root.__dataChanged).toBe(false);
		const store = asDedupeStore(nodeData.dedupe);
		expect(checkAndRemember(store, 'a', T0 + 1, limits).duplicate).toBe(true);
		expect(checkAndRemember(store, 'b', T0 + 2, limits).duplicate).toBe(false);
		expect(root.__dataChanged).toBe(true);
		expect(JSON.parse(JSON.stringify(root))['node:Media Gateway Trigger'].dedupe.entries).toEqual({
			a: T0,
			b: T0 + 2,
		});
	});
});

describe('in-flight claims (a callback whose execution is being started)', () => {
	it("lets one request hold a key, and a release never frees a later request's hold", () => {
		const first = claimInFlight('wf:node', 'key-1');
		expect(first).toBeDefined();
		expect(claimInFlight('wf:node', 'key-1')).toBeUndefined();
		expect(claimInFlight('wf:node', 'key-2')).toBeDefined();
		expect(claimInFlight('wf:other', 'key-1')).toBeDefined();
		first!.release();
		const second = claimInFlight('wf:node', 'key-1');
		expect(second).toBeDefined();
		first!.release(); // e.g. the first request's connection closing late
		expect(claimInFlight('wf:node', 'key-1')).toBeUndefined();
		second!.release();
		expect(claimInFlight('wf:node', 'key-1')).toBeDefined();
		forgetProcessDedupeStore('wf:node');
		forgetProcessDedupeStore('wf:other');
		expect(claimInFlight('wf:node', 'key-1')).toBeDefined();
	});
});
