/**
 * CPU time of a synchronous or async function, in milliseconds: the smallest of a few runs. CPU
 * time (not wall time) and the minimum keep the "stays fast" assertions meaningful on a busy
 * machine, where other processes and GC pauses would otherwise decide the result.
 */
export async function cpuMs<T>(fn: () => T | Promise<T>, runs = 3): Promise<{ ms: number; result: T }> {
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
