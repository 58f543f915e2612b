/**
 * The panel parameters every operation that creates a video task shares (Video's two create
 * operations and Storyboard's), and their readers. Each is defined once; its label in errors is its
 * display name.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { VIDEO_MODELS } from '../gateway/schemas';
import { downloadOptions, optionsCollection } from '../parameters/options';
import { readNumber, readText } from '../parameters/read';
import { callbackModeNotice, waitLimitProperty } from './callbackWait';
import type { PollSettings } from './task';

export const modelTierProperty: INodeProperties = {
	displayName: 'Quality Tier',
	name: 'model',
	type: 'options',
	options: [
		{ name: 'Standard', value: VIDEO_MODELS[0], description: 'Model vidmodel: faster and cheaper' },
		{
			name: 'Pro',
			value: VIDEO_MODELS[1],
			description: 'Model vidmodel-pro: higher quality, takes longer',
		},
	],
	default: 'vidmodel',
};

export const sizeProperty: INodeProperties = {
	displayName: 'Size',
	name: 'size',
	type: 'string',
	default: '1280x720',
	placeholder: '1280x720',
	description: 'Frame size as &lt;width&gt;x&lt;height&gt;. Leave empty for the gateway default.',
};

/**
 * Duration of a video, or of one storyboard scene. docs/gateway-interface.md, "Decisions where the
 * interface is silent": the unit is not given; seconds is assumed.
 */
export function durationProperty(of: 'video' | 'scene'): INodeProperties {
	return {
		displayName: 'Duration',
		name: 'duration',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 5,
		description: `Length of the ${of} as a whole number (seconds on gateways of this kind)`,
	};
}

export const callbackUrlProperty: INodeProperties = {
	displayName: 'Callback URL',
	name: 'callbackUrl',
	type: 'string',
	default: '',
	placeholder: 'https://your-n8n.example.com/webhook/…/media-gateway',
	// In "Wait for Callback" the node sends its own resume URL instead.
	displayOptions: { hide: { completion: ['callback'] } },
	hint: 'Optional. Paste the Production URL of a Media Gateway Trigger node to start a workflow on every status change of this task.',
	description:
		"Sent to the gateway as notifyHook. Use the trigger's Production URL, not its Test URL: the test URL only listens while the editor waits, and a video may finish minutes later.",
};

export const completionProperty: INodeProperties = {
	displayName: 'Completion',
	name: 'completion',
	type: 'options',
	options: [
		{
			name: 'Return Task at Once',
			value: 'returnTask',
			description:
				'Output the task ID and status right away. Pair it with a Media Gateway Trigger (Callback URL) or a later Get Task.',
		},
		{
			name: 'Wait Until Done',
			value: 'poll',
			description:
				'Ask the gateway for the task status every Poll Interval until the video is ready',
		},
		{
			name: 'Wait for Callback',
			value: 'callback',
			description:
				'Pause the execution until the gateway reports every task finished; holds no worker while the videos render, and resumes once with all items',
		},
	],
	default: 'poll',
};

const pollIntervalProperty: INodeProperties = {
	displayName: 'Poll Interval (Seconds)',
	name: 'pollIntervalSeconds',
	type: 'number',
	typeOptions: { minValue: 0.1, numberPrecision: 1 },
	default: 10,
	description: 'How long to wait between two status requests',
};

const waitTimeoutProperty: INodeProperties = {
	displayName: 'Wait Timeout (Minutes)',
	name: 'waitTimeoutMinutes',
	type: 'number',
	typeOptions: { minValue: 0.01, numberPrecision: 2 },
	default: 15,
	description:
		'Give up waiting after this long. The task keeps running on the gateway; the error names its ID so you can fetch it later.',
};

/** Poll Interval and Wait Timeout, shown under `show` (Wait Until Done, or the Wait for Task operation). */
export function pollSettingsProperties(show?: Record<string, string[]>): INodeProperties[] {
	return [pollIntervalProperty, waitTimeoutProperty].map((property) =>
		show ? { ...property, displayOptions: { show } } : property,
	);
}

/** Completion, its settings per mode and the Options collections: the end of every task-creating operation. */
export const completionProperties: INodeProperties[] = [
	completionProperty,
	...pollSettingsProperties({ completion: ['poll'] }),
	callbackModeNotice({ completion: ['callback'] }),
	waitLimitProperty({ completion: ['callback'] }),
	optionsCollection(downloadOptions('Video', false), { completion: ['poll', 'callback'] }),
	optionsCollection([], { completion: ['returnTask'] }),
];

export function readPollSettings(ctx: IExecuteFunctions, itemIndex: number): PollSettings {
	const interval = readNumber(ctx, pollIntervalProperty, itemIndex) ?? 10;
	const timeout = readNumber(ctx, waitTimeoutProperty, itemIndex) ?? 15;
	if (interval < 0.1) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${pollIntervalProperty.displayName} must be at least 0.1`,
			{
				itemIndex,
				description: `Got ${interval}. A few seconds is usual; polling faster only costs requests.`,
			},
		);
	}
	if (timeout <= 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${waitTimeoutProperty.displayName} must be greater than 0`,
			{
				itemIndex,
				description: `Got ${timeout}. Videos usually take minutes; pro quality and storyboards take longer.`,
			},
		);
	}
	return { pollIntervalMs: Math.round(interval * 1000), timeoutMs: Math.round(timeout * 60_000) };
}

export function readCallbackUrl(ctx: IExecuteFunctions, itemIndex: number): string {
	return readText(ctx, callbackUrlProperty, itemIndex);
}
