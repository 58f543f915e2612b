import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { assertTaskId, fetchVideoTask, videoTaskJson } from '../../shared/videoTask/task';
import { optionsCollection } from '../../shared/parameters/options';
import { taskIdProperty } from './taskId';

export const properties: INodeProperties[] = [taskIdProperty('get'), optionsCollection('get', [])];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const taskId = assertTaskId(this, this.getNodeParameter('taskId', itemIndex), itemIndex);
	const task = await fetchVideoTask(this, itemIndex, taskId);
	return [{ json: videoTaskJson(task, taskId) }];
}
