import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

/** Sleeps in short slices so a cancelled execution stops waiting within a fraction of a second. */
const SLICE_MS = 250;

export function throwIfCancelled(
	ctx: IExecuteFunctions | IWebhookFunctions,
	signal: AbortSignal | undefined,
	itemIndex: number,
): void {
	if (signal?.aborted) {
		throw new NodeOperationError(ctx.getNode(), 'The execution was cancelled', { itemIndex });
	}
}

export async function cancellableSleep(
	ctx: IExecuteFunctions | IWebhookFunctions,
	ms: number,
	signal: AbortSignal | undefined,
	itemIndex: number,
): Promise<void> {
	const until = Date.now() + ms;
	for (let left = ms; left > 0; left = until - Date.now()) {
		throwIfCancelled(ctx, signal, itemIndex);
		await sleep(Math.min(left, SLICE_MS));
	}
	throwIfCancelled(ctx, signal, itemIndex);
}
