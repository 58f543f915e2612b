import type { IWebhookFunctions } from 'n8n-workflow';

import { CALLBACK_KINDS } from '../shared/gateway/callbacks';
import type { CallbackItem, CallbackKind } from '../shared/gateway/callbacks';
import { isFinalState } from '../shared/gateway/status';
import { LABEL } from './description';

/**
 * Why the configured filters (Kinds, Final Statuses Only, Task ID Filter) drop this callback, or
 * undefined when it passes. A dropped callback is answered 200 with this reason and starts nothing.
 */
export function filterOut(ctx: IWebhookFunctions, item: CallbackItem): string | undefined {
	const kinds = (ctx.getNodeParameter('kinds', [...CALLBACK_KINDS]) as CallbackKind[]) ?? [];
	if (kinds.length > 0 && !kinds.includes(item.kind)) return `kind ${item.kind} is not selected`;
	if ((ctx.getNodeParameter('finalOnly', true) as boolean) && !isFinalState(item.state)) {
		return 'status is not final';
	}
	const taskIds = String(ctx.getNodeParameter('taskIds', '') ?? '')
		.split(',')
		.map((id) => id.trim())
		.filter((id) => id !== '');
	if (taskIds.length > 0 && !taskIds.includes(item.taskId.trim()))
		return `task id is not in the ${LABEL.taskIds}`;
	return undefined;
}
