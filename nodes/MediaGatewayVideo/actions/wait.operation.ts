import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import type { ItemRun } from '../../shared/execution/itemRunner';
import { assertTaskId, finishedVideoItem, resultOptions, waitForVideoTask } from '../../shared/videoTask/task';
import { pollSettingsProperties, readPollSettings } from '../../shared/videoTask/completion';
import { taskIdProperty } from './taskId';

export const properties: INodeProperties[] = [
	taskIdProperty('wait'),
	...pollSettingsProperties({ operation: ['wait'] }),
	optionsCollection('wait', downloadOptions('Video', false)),
];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
): Promise<INodeExecutionData[]> {
	const taskId = assertTaskId(this, this.getNodeParameter('taskId', itemIndex), itemIndex);
	const task = await waitForVideoTask(this, itemIndex, taskId, readPollSettings(this, itemIndex), run);
	return [await finishedVideoItem(this, itemIndex, task, taskId, resultOptions(this, itemIndex))];
}
