/**
 * The batch record: what one parked execution waits for, kept in the waiting node's stack-entry
 * metadata. startCallbackWait writes it once before parking; the webhook only reads it back (and sets
 * the stack entry's `resumeError` when it resumes).
 */
import type { IDataObject, IExecuteData, IExecuteFunctions, ITaskMetadata } from 'n8n-workflow';
import type { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ResultOptions } from '../task';

/** Stack-entry metadata key of the batch. */
export const BATCH_METADATA_KEY = 'mediaGatewayBatch';

/** What one input item became when the batch parked: its task, or (Continue On Fail) its error item. */
export type BatchEntry = { taskId: string; options: ResultOptions } | { error: IDataObject };

/** Everything the webhook needs, written once before parking. */
export interface CallbackBatch {
	version: 1;
	entries: BatchEntry[];
	continueOnFail: boolean;
	concurrency: number;
	limitMs: number;
}

/** Stores the batch with the waiting node's stack entry; n8n persists it with the waiting execution. */
export function writeBatch(ctx: IExecuteFunctions, batch: CallbackBatch): void {
	ctx.setMetadata({ [BATCH_METADATA_KEY]: batch } as ITaskMetadata);
}

/** Reads the batch back, refusing anything that is not exactly what startCallbackWait wrote. */
export function readBatch(metadata: unknown): CallbackBatch | undefined {
	const raw = (metadata as Record<string, unknown> | undefined)?.[BATCH_METADATA_KEY] as
		Partial<CallbackBatch> | undefined;
	if (!raw || raw.version !== 1 || !Array.isArray(raw.entries) || raw.entries.length === 0)
		return undefined;
	const entriesOk = raw.entries.every(
		(entry) =>
			entry !== null &&
			typeof entry === 'object' &&
			((typeof (entry as { taskId?: unknown }).taskId === 'string' &&
				typeof (entry as { options?: unknown }).options === 'object') ||
				typeof (entry as { error?: unknown }).error === 'object'),
	);
	if (!entriesOk || typeof raw.concurrency !== 'number' || typeof raw.limitMs !== 'number')
		return undefined;
	return raw as CallbackBatch;
}

/** The item indexes of the batch that have a task (not a creation error). */
export function taskIndexes(batch: CallbackBatch): number[] {
	return batch.entries.flatMap((entry, itemIndex) => ('taskId' in entry ? [itemIndex] : []));
}

/** What n8n throws when it resumes the execution: the batch's failure, or nothing. */
export function setResumeError(
	entry: IExecuteData,
	error: NodeOperationError | NodeApiError | undefined,
): void {
	const metadata = { ...(entry.metadata ?? {}) };
	if (error) metadata.resumeError = error;
	else delete metadata.resumeError;
	entry.metadata = metadata;
}
