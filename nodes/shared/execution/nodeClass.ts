/**
 * The wiring every action node class shares, so that a node's `*.node.ts` holds only its description
 * (n8n's scanner reads that as an object literal in the class) and the registry it runs. A node class
 * extends `itemNode(operations)`, or `videoTaskNode(operations)` for the nodes that create video tasks.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { type NodeSettings, type OperationExecutor, runItems } from './itemRunner';

/** What a node's execute() does, given the settings the node was constructed with. */
export type NodeRunner = (
	this: IExecuteFunctions,
	settings: NodeSettings,
) => Promise<INodeExecutionData[][]>;

/** A node class whose execute() is `run`: n8n constructs it without settings; tests pass their own (e.g. a faster retry policy). */
export function actionNode(run: NodeRunner) {
	return class ActionNode {
		execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;

		constructor(settings: NodeSettings = {}) {
			this.execute = async function (this: IExecuteFunctions) {
				return await run.call(this, settings);
			};
		}
	};
}

/** A node class that runs its operations item by item through the shared item runner. */
export function itemNode(operations: Record<string, OperationExecutor>) {
	return actionNode(async function (this: IExecuteFunctions, settings: NodeSettings) {
		return await runItems.call(this, operations, settings);
	});
}
