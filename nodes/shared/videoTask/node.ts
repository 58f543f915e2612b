/**
 * The wiring of the nodes that create video tasks (Video, Storyboard): execute() in the completion mode
 * the user chose, and the restart webhook that receives the gateway's callbacks while an execution
 * waits (Completion → Wait for Callback). The node's description still declares
 * `webhooks: callbackWaitWebhooks`.
 */
import type { IExecuteFunctions, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { NodeSettings } from '../execution/itemRunner';
import { actionNode } from '../execution/nodeClass';
import { callbackWaitWebhook, callbackWaitWebhookMethods } from './callbackWait';
import { executeVideoNode, type VideoOperation } from './completion';

export function videoTaskNode(operations: Record<string, VideoOperation>) {
	const run = async function (this: IExecuteFunctions, settings: NodeSettings) {
		return await executeVideoNode.call(this, operations, settings);
	};
	return class VideoTaskNode extends actionNode(run) {
		webhookMethods = callbackWaitWebhookMethods;

		/** Receives the gateway's callbacks while an execution waits (Completion → Wait for Callback). */
		async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
			return await callbackWaitWebhook(this);
		}
	};
}
