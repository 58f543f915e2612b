/** The node's output once every task of a batch is final, or the one error that names the failed ones. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import type { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { asNodeError, errorItemJson } from '../../execution/errors';
import { normaliseStatus } from '../../gateway/status';
import type { GatewayContext } from '../../transport/request';
import {
	finishedVideoItem,
	type ResultOptions,
	taskError,
	taskFailedError,
	type VideoTask,
} from '../task';
import type { CallbackBatch } from './batch';
import { forEachLimited } from './limited';

/**
 * The node's output for a batch whose tasks are all final: one item per input item, in input order,
 * each paired with its input item. Without Continue On Fail, failed tasks (and failed downloads)
 * become one error that names each of them instead.
 */
export async function batchOutput(
	ctx: GatewayContext,
	batch: CallbackBatch,
	tasks: Map<number, VideoTask>,
): Promise<{ items: INodeExecutionData[]; failure?: NodeOperationError | NodeApiError }> {
	const outputs: IDataObject[] = new Array(batch.entries.length);
	const binaries: Array<INodeExecutionData['binary']> = new Array(batch.entries.length);
	const failures: Array<{ itemIndex: number; error: NodeOperationError | NodeApiError }> = [];
	const succeeded: number[] = [];
	batch.entries.forEach((entry, itemIndex) => {
		if (!('taskId' in entry)) {
			outputs[itemIndex] = entry.error;
			return;
		}
		const task = tasks.get(itemIndex) ?? {};
		if (normaliseStatus(task.status) === 'failed') {
			failures.push({ itemIndex, error: taskFailedError(ctx, itemIndex, entry.taskId, task) });
		} else {
			succeeded.push(itemIndex);
		}
	});
	if (failures.length === 0 || batch.continueOnFail) {
		await forEachLimited(succeeded, batch.concurrency, async (itemIndex) => {
			const entry = batch.entries[itemIndex] as { taskId: string; options: ResultOptions };
			try {
				const item = await finishedVideoItem(
					ctx,
					itemIndex,
					tasks.get(itemIndex)!,
					entry.taskId,
					entry.options,
				);
				outputs[itemIndex] = item.json;
				binaries[itemIndex] = item.binary;
			} catch (caught) {
				failures.push({ itemIndex, error: asNodeError(ctx.getNode(), caught, itemIndex) });
			}
		});
	}
	if (batch.continueOnFail) {
		for (const { itemIndex, error } of failures) outputs[itemIndex] = errorItemJson(error);
	} else if (failures.length > 0) {
		failures.sort((a, b) => a.itemIndex - b.itemIndex);
		return { items: [], failure: combinedFailure(ctx, batch, failures) };
	}
	return {
		items: outputs.map((json, itemIndex) => ({
			json,
			...(binaries[itemIndex] ? { binary: binaries[itemIndex] } : {}),
			pairedItem: { item: itemIndex },
		})),
	};
}

function combinedFailure(
	ctx: GatewayContext,
	batch: CallbackBatch,
	failures: Array<{ itemIndex: number; error: NodeOperationError | NodeApiError }>,
): NodeOperationError | NodeApiError {
	if (failures.length === 1 && batch.entries.length === 1) return failures[0].error;
	const lines = failures.map(({ itemIndex, error }) => `item ${itemIndex}: ${error.message}`);
	const failedIds = failures.flatMap(({ itemIndex }) => {
		const entry = batch.entries[itemIndex];
		return 'taskId' in entry ? [entry.taskId] : [];
	});
	return taskError(
		ctx,
		`${failures.length} of ${batch.entries.length} video tasks failed: ${lines.join('; ')}`,
		{
			itemIndex: failures[0].itemIndex,
			description:
				'Change the prompts or inputs the reasons point at and run those items again. To keep the finished videos of a batch when some fail, set the node\'s Settings → On Error to "Continue".',
			task: { taskIds: failedIds, state: 'failed' },
		},
	);
}
