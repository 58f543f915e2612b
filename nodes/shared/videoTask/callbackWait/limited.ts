/** Runs `work` over `indexes` with at most `limit` at a time; `stop()` ends the run early. */
export async function forEachLimited(
	indexes: number[],
	limit: number,
	work: (index: number, stop: () => void) => Promise<void>,
): Promise<void> {
	let cursor = 0;
	let stopped = false;
	const stop = () => {
		stopped = true;
	};
	const worker = async () => {
		while (!stopped && cursor < indexes.length) {
			const index = indexes[cursor++];
			await work(index, stop);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, indexes.length) }, worker));
}
