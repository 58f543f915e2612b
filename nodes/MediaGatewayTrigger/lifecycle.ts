/**
 * Activation and deactivation (n8n's checkExists/create/delete cycle for webhooks).
 *
 * The gateway has no registration API: the callback URL travels with each request as notifyHook.
 * What "registering" means here is recording what the node needs in its static data, so the cycle
 * keeps the duplicate memory across restarts and clears it on deactivation.
 */
import type { IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { assertSecretConfigured } from './authentication';
import { dropDuplicateMemory, resetDuplicateMemory } from './duplicates';

export const webhookMethods = {
	default: {
		async checkExists(this: IHookFunctions): Promise<boolean> {
			const data = this.getWorkflowStaticData('node');
			const url = this.getNodeWebhookUrl('default');
			return typeof data.registeredUrl === 'string' && data.registeredUrl === url;
		},
		async create(this: IHookFunctions): Promise<boolean> {
			const url = this.getNodeWebhookUrl('default');
			if (!url) {
				throw new NodeOperationError(
					this.getNode(),
					'n8n gave this node no webhook URL to listen on',
				);
			}
			const authentication = assertSecretConfigured(this);
			const data = this.getWorkflowStaticData('node');
			data.registeredUrl = url;
			data.authentication = authentication;
			data.registeredAt = new Date().toISOString();
			resetDuplicateMemory(this, data);
			return true;
		},
		async delete(this: IHookFunctions): Promise<boolean> {
			const data = this.getWorkflowStaticData('node');
			delete data.registeredUrl;
			delete data.authentication;
			delete data.registeredAt;
			dropDuplicateMemory(this, data);
			return true;
		},
	},
};
