import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { ItemRun } from '../../shared/execution/itemRunner';
import { optionsCollection } from '../../shared/parameters/options';
import { fetchVideoTask, videoTaskJson } from '../../shared/videoTask/task';
import { readTaskId, taskIdProperty } from './taskId';

const properties: INodeProperties[] = [taskIdProperty, optionsCollection([])];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
): Promise<INodeExecutionData[]> {
	const taskId = readTaskId(this, itemIndex);
	const task = await fetchVideoTask(this, itemIndex, taskId, run.transport);
	return [{ json: videoTaskJson(task, taskId) }];
}
