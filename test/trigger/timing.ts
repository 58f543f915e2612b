/**
 * CPU time of a synchronous or async function, in milliseconds: the smallest of a few runs. CPU
 * time (not wall time) and the minimum keep the "stays fast" assertions meaningful on a busy
 * machine, where other processes and GC pauses would otherwise decide the result.
 */
export async function cpuMs<T>(
	fn: () => T | Promise<T>,
	runs = 3,
): Promise<{ ms: number; result: T }> {
	let best = Number.POSITIVE_INFINITY;
	let result!: T;
	for (let i = 0; i < runs; i++) {
		const before = process.cpuUsage();
		result = await fn();
		const used = process.cpuUsage(before);
		best = Math.min(best, (used.user + used.system) / 1000);
	}
	return { ms: best, result };
}

/**
 * Asserts that `ms` (CPU time of the guarded case) stays within `factor` times `baselineMs`, the CPU time of
 * a comparison case measured in the same test, plus `floorMs` for timer granularity. A ratio of two figures
 * taken side by side holds on a fast idle machine and a slow loaded one alike, while a missing protection
 * (work that grows with the body) multiplies the guarded case's cost far beyond the factor. The message
 * names both figures.
 */
export function expectWithin(
	ms: number,
	baselineMs: number,
	factor: number,
	what: string,
	floorMs = 2,
): void {
	const bound = baselineMs * factor + floorMs;
	if (!(ms < bound)) {
		throw new Error(
			`${what}: ${ms.toFixed(2)} ms of CPU, more than ${factor} × the baseline's ${baselineMs.toFixed(2)} ms + ${floorMs} ms`,
		);
	}
}
