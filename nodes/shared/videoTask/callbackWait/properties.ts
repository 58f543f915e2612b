/**
 * The panel pieces of Wait for Callback (the notice and the Wait Limit) and the reader of the limit.
 * The Completion option that selects the mode is with the other completion modes in ../properties.ts.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { numberParameter } from '../../parameters/read';

export const DEFAULT_WAIT_LIMIT_MINUTES = 60;
/** A render that has not finished in a day will not; a longer wait only keeps a dead execution. */
export const MAX_WAIT_LIMIT_MINUTES = 1440;
/** One parked execution holds at most this many tasks (at most one GET each when the batch is checked). */
export const MAX_BATCH_ITEMS = 100;

export function waitLimitProperty(show: Record<string, string[]>): INodeProperties {
	return {
		displayName: 'Wait Limit (Minutes)',
		name: 'callbackWaitLimitMinutes',
		type: 'number',
		typeOptions: { minValue: 0.01, maxValue: MAX_WAIT_LIMIT_MINUTES, numberPrecision: 2 },
		default: DEFAULT_WAIT_LIMIT_MINUTES,
		displayOptions: { show },
		description: `End the wait with an error naming the unfinished tasks if the batch is not done by then (at most ${MAX_WAIT_LIMIT_MINUTES} minutes, one day). n8n checks waiting executions once a minute, so the end can come up to a minute later.`,
	};
}

export const callbackModeNotice = (show: Record<string, string[]>): INodeProperties => ({
	displayName: `The execution pauses until the gateway reports every task of the batch (up to ${MAX_BATCH_ITEMS} items) finished; no worker is busy meanwhile. The gateway must reach this n8n at its public URL (set WEBHOOK_URL).`,
	name: 'callbackModeNotice',
	type: 'notice',
	default: '',
	displayOptions: { show },
});

export function readWaitLimitMs(ctx: IExecuteFunctions): number {
	const minutes =
		numberParameter(ctx, 'callbackWaitLimitMinutes', 0, 'Wait Limit (Minutes)') ??
		DEFAULT_WAIT_LIMIT_MINUTES;
	if (!(minutes > 0) || minutes > MAX_WAIT_LIMIT_MINUTES) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Wait Limit (Minutes) must be greater than 0 and at most ${MAX_WAIT_LIMIT_MINUTES}`,
			{
				itemIndex: 0,
				description: `Got ${minutes}. Pro videos and storyboards can take many minutes; an hour is a safe limit. For renders longer than a day, choose Return Task at Once with a Media Gateway Trigger.`,
			},
		);
	}
	return Math.round(minutes * 60_000);
}
