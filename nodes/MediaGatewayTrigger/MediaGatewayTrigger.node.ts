import type {
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../shared/transport/credentials';
import { properties, triggerPanel, webhooks } from './description';
import { webhookMethods } from './lifecycle';
import { receiveCallback } from './webhook';

/**
 * Starts a workflow for each task status callback the media gateway posts. Fields and panel texts are
 * in description.ts, activation in lifecycle.ts, and one callback's way from request to answer in
 * webhook.ts (with authentication.ts, filters.ts, confirmation.ts, duplicates.ts and acknowledgement.ts).
 */
export class MediaGatewayTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Gateway Trigger',
		name: 'mediaGatewayTrigger',
		icon: { light: 'file:mediaGatewayTrigger.svg', dark: 'file:mediaGatewayTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["finalOnly"] === false ? "All statuses" : "Final statuses only" }}',
		description:
			'Starts the workflow when the media gateway posts an image, video or music task status callback',
		eventTriggerDescription: 'Waiting for a gateway callback on the Test URL',
		activationMessage:
			'The workflow now starts on every gateway callback sent to the Production URL. Paste that URL (not the Test URL) into the Callback URL of the Media Gateway nodes or the notifyHook of your requests.',
		defaults: { name: 'Media Gateway Trigger' },
		triggerPanel,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// Optional: only used to confirm final video callbacks with the gateway.
		credentials: [{ name: CREDENTIAL_TYPE, required: false }],
		webhooks,
		properties,
	};

	webhookMethods = webhookMethods;

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveCallback.call(this);
	}
}
