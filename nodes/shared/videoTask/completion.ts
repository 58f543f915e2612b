/**
 * What every operation that creates a video task shares: the model tier, the Callback URL, the
 * completion mode and its settings, and what happens after the task was created.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { ZodType, ZodTypeDef } from 'zod/v3';

import { callbackModeNotice, startCallbackWait, waitLimitProperty } from './callbackWait';
import { downloadOptions, optionsCollection } from '../parameters/options';
import { type ItemRun, type OperationExecutor, routeItems } from '../execution/itemRunner';
import { VIDEO_MODELS } from '../gateway/schemas';
import {
	assertTaskId,
	finishedVideoItem,
	resultOptions,
	type PollSettings,
	type VideoTask,
	videoTaskJson,
	waitForVideoTask,
} from './task';
import { gatewayRequest } from '../transport/request';
import { compact, type FieldLabels, numberParameter, stringParameter, validateBody } from '../gateway/validation';

export type CompletionMode = 'returnTask' | 'poll' | 'callback';

export const VIDEO_FIELD_LABELS: FieldLabels = {
	model: 'Quality Tier',
	prompt: 'Prompt',
	aspect_ratio: 'Aspect Ratio',
	size: 'Size',
	duration: 'Duration',
	image_url: 'Reference Image',
	storyboard: 'Scene',
	'storyboard.prompt': 'Prompt',
	'storyboard.duration': 'Duration',
	notifyHook: 'Callback URL',
};


export function modelTierProperty(operations: string[]): INodeProperties {
	return {
		displayName: 'Quality Tier',
		name: 'model',
		type: 'options',
		options: [
			{ name: 'Standard', value: VIDEO_MODELS[0], description: 'Model vidmodel: faster and cheaper' },
			{ name: 'Pro', value: VIDEO_MODELS[1], description: 'Model vidmodel-pro: higher quality, takes longer' },
		],
		default: 'vidmodel',
		displayOptions: { show: { operation: operations } },
	};
}

export function videoPromptProperty(operations: string[], description: string): INodeProperties {
	return {
		displayName: 'Prompt',
		name: 'prompt',
		type: 'string',
		typeOptions: { rows: 3 },
		required: true,
		default: '',
		placeholder: 'e.g. A paper boat drifting down a rainy street, slow motion',
		displayOptions: { show: { operation: operations } },
		description,
	};
}

export function callbackUrlProperty(operations: string[]): INodeProperties {
	return {
		displayName: 'Callback URL',
		name: 'callbackUrl',
		type: 'string',
		default: '',
		placeholder: 'https://your-n8n.example.com/webhook/…/media-gateway',
		// In "Wait for Callback" the node sends its own resume URL instead.
		displayOptions: { show: { operation: operations }, hide: { completion: ['callback'] } },
		hint: 'Optional. Paste the Production URL of a Media Gateway Trigger node to start a workflow on every status change of this task.',
		description:
			'Sent to the gateway as notifyHook. Use the trigger\'s Production URL, not its Test URL: the test URL only listens while the editor waits, and a video may finish minutes later.',
	};
}

export function completionProperties(operations: string[]): INodeProperties[] {
	const show = { operation: operations };
	return [
		{
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
					description: 'Ask the gateway for the task status every Poll Interval until the video is ready',
				},
				{
					name: 'Wait for Callback',
					value: 'callback',
					description:
						'Pause the execution until the gateway reports every task finished; holds no worker while the videos render, and resumes once with all items',
				},
			],
			default: 'poll',
			displayOptions: { show },
		},
		...pollSettingsProperties({ ...show, completion: ['poll'] }),
		callbackModeNotice({ ...show, completion: ['callback'] }),
		waitLimitProperty({ ...show, completion: ['callback'] }),
		optionsCollection(operations, downloadOptions('Video', false), { completion: ['poll', 'callback'] }),
		optionsCollection(operations, [], { completion: ['returnTask'] }),
	];
}

export function pollSettingsProperties(show: Record<string, string[]>): INodeProperties[] {
	return [
		{
			displayName: 'Poll Interval (Seconds)',
			name: 'pollIntervalSeconds',
			type: 'number',
			typeOptions: { minValue: 0.1, numberPrecision: 1 },
			default: 10,
			displayOptions: { show },
			description: 'How long to wait between two status requests',
		},
		{
			displayName: 'Wait Timeout (Minutes)',
			name: 'waitTimeoutMinutes',
			type: 'number',
			typeOptions: { minValue: 0.01, numberPrecision: 2 },
			default: 15,
			displayOptions: { show },
			description:
				'Give up waiting after this long. The task keeps running on the gateway; the error names its ID so you can fetch it later.',
		},
	];
}

export function readPollSettings(ctx: IExecuteFunctions, itemIndex: number): PollSettings {
	const interval = numberParameter(ctx, 'pollIntervalSeconds', itemIndex, 'Poll Interval (Seconds)') ?? 10;
	const timeout = numberParameter(ctx, 'waitTimeoutMinutes', itemIndex, 'Wait Timeout (Minutes)') ?? 15;
	if (interval < 0.1) {
		throw new NodeOperationError(ctx.getNode(), 'Poll Interval (Seconds) must be at least 0.1', {
			itemIndex,
			description: `Got ${interval}. A few seconds is usual; polling faster only costs requests.`,
		});
	}
	if (timeout <= 0) {
		throw new NodeOperationError(ctx.getNode(), 'Wait Timeout (Minutes) must be greater than 0', {
			itemIndex,
			description: `Got ${timeout}. Videos usually take minutes; pro quality and storyboards take longer.`,
		});
	}
	return { pollIntervalMs: Math.round(interval * 1000), timeoutMs: Math.round(timeout * 60_000) };
}

export function readCallbackUrl(ctx: IExecuteFunctions, itemIndex: number): string {
	return stringParameter(ctx, 'callbackUrl', itemIndex, 'Callback URL');
}

/** How an item's task is completed, read (and checked) before the task is created and billed. */
export type CompletionPlan = { mode: 'returnTask' } | { mode: 'poll'; settings: PollSettings };

export function readCompletionPlan(ctx: IExecuteFunctions, itemIndex: number): CompletionPlan {
	const mode = ctx.getNodeParameter('completion', itemIndex, 'poll') as CompletionMode;
	if (mode === 'returnTask') return { mode };
	if (mode === 'poll') return { mode, settings: readPollSettings(ctx, itemIndex) };
	throw new NodeOperationError(ctx.getNode(), `Completion "${String(mode)}" cannot be used here`, {
		itemIndex,
		description:
			mode === 'callback'
				? 'Wait for Callback applies to the whole execution; it is handled before items are processed.'
				: 'Choose Return Task at Once, Wait Until Done or Wait for Callback.',
	});
}

/** After creation: return the task, or wait for it and return the finished video. */
export async function completeVideoTask(
	ctx: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
	created: VideoTask,
	plan: CompletionPlan,
): Promise<INodeExecutionData[]> {
	const taskId = assertTaskId(ctx, created.id, itemIndex, 'The task ID the gateway returned');
	run.recordTask(taskId);
	if (plan.mode === 'returnTask') return [{ json: videoTaskJson(created, taskId) }];
	const task = await waitForVideoTask(ctx, itemIndex, taskId, plan.settings, run);
	return [await finishedVideoItem(ctx, itemIndex, task, taskId, resultOptions(ctx, itemIndex))];
}

export interface VideoRequest {
	path: string;
	schema: ZodType<IDataObject, ZodTypeDef, unknown>;
	body: IDataObject;
}

/** Reads one item's parameters into the request that creates its task. */
export type VideoRequestBuilder = (ctx: IExecuteFunctions, itemIndex: number) => Promise<VideoRequest>;

/** Reads and validates one item's request; the returned function creates (and bills) the task. */
export async function prepareVideoRequest(
	ctx: IExecuteFunctions,
	itemIndex: number,
	request: VideoRequest,
): Promise<() => Promise<VideoTask>> {
	const body = validateBody(ctx, request.schema, compact(request.body), itemIndex, VIDEO_FIELD_LABELS);
	return async () => await gatewayRequest<VideoTask>(ctx, { method: 'POST', path: request.path, body, itemIndex });
}

/** Validates the body and creates the task: the one way every video-creating operation sends. */
export async function sendVideoRequest(
	ctx: IExecuteFunctions,
	itemIndex: number,
	request: VideoRequest,
): Promise<VideoTask> {
	return await (await prepareVideoRequest(ctx, itemIndex, request))();
}

/** An operation executor that creates the task and completes it as the user chose. */
export function videoCreateExecutor(build: VideoRequestBuilder): OperationExecutor {
	return async function (this: IExecuteFunctions, itemIndex: number, run: ItemRun) {
		const plan = readCompletionPlan(this, itemIndex);
		const created = await sendVideoRequest(this, itemIndex, await build(this, itemIndex));
		return await completeVideoTask(this, itemIndex, run, created, plan);
	};
}

/**
 * The execute() of every node that creates video tasks. "Wait for Callback" parks the whole
 * execution once for all items, so it cannot run inside the per-item router; every other mode
 * goes through it.
 */
export async function executeVideoNode(
	this: IExecuteFunctions,
	operations: Record<string, OperationExecutor>,
	builders: Record<string, VideoRequestBuilder>,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const operation = this.getNodeParameter('operation', 0) as string;
	const build = builders[operation];
	if (items.length > 0 && build && this.getNodeParameter('completion', 0, 'poll') === 'callback') {
		return await startCallbackWait(this, async (itemIndex, notifyHook) => {
			const request = await build(this, itemIndex);
			return await prepareVideoRequest(this, itemIndex, { ...request, body: { ...request.body, notifyHook } });
		});
	}
	return await routeItems.call(this, operations);
}
