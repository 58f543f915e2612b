import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { ItemRun } from '../../shared/execution/itemRunner';
import { downloadOptions, optionsCollection } from '../../shared/parameters/options';
import { pollSettingsProperties, readPollSettings } from '../../shared/videoTask/properties';
import { finishedVideoItem, resultOptions, waitForVideoTask } from '../../shared/videoTask/task';
import { readTaskId, taskIdProperty } from './taskId';

const properties: INodeProperties[] = [
	taskIdProperty,
	...pollSettingsProperties(),
	optionsCollection(downloadOptions('Video', false)),
];

export const description = updateDisplayOptions({ show: { operation: ['wait'] } }, properties);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
): Promise<INodeExecutionData[]> {
	const taskId = readTaskId(this, itemIndex);
	const task = await waitForVideoTask(
		this,
		itemIndex,
		taskId,
		readPollSettings(this, itemIndex),
		run,
	);
	return [
		await finishedVideoItem(
			this,
			itemIndex,
			task,
			taskId,
			resultOptions(this, itemIndex),
			run.transport,
		),
	];
}
