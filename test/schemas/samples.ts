/**
 * What each operation really outputs: every operation of every action node run through n8n-core's
 * WorkflowExecute (dev/harness) against the gateway simulator, in each of its output variants,
 * and the trigger fed the gateway's documented callback bodies (docs/gateway-interface.md, Callbacks). The shipped output schemas are derived from
 * these items (schemas.test.ts), so a change to what a node outputs changes its schema or fails.
 */
import type { IDataObject, INodeParameters, INodeProperties, INodeType } from 'n8n-workflow';

import { MediaGatewayCharacter } from '../../nodes/MediaGatewayCharacter/MediaGatewayCharacter.node';
import { MediaGatewayImage } from '../../nodes/MediaGatewayImage/MediaGatewayImage.node';
import { MediaGatewayStoryboard } from '../../nodes/MediaGatewayStoryboard/MediaGatewayStoryboard.node';
import { MediaGatewayVideo } from '../../nodes/MediaGatewayVideo/MediaGatewayVideo.node';
import type { HarnessInputItem } from '../../dev/harness/runNode';
import { callWebhook, type WebhookOptions } from '../trigger/fakes';
import {
	imageFailure,
	imageSuccess,
	musicComplete,
	videoProcessing,
	videoSuccess,
} from '../trigger/samples';
import { API_KEY, PNG_BASE64, runGateway, type Simulator } from '../video/helpers';

/** A run of one operation: its parameters and, when it reads binary data, its input items. */
export interface SampleRun {
	/** What this variant shows, for error messages. */
	variant: string;
	parameters: INodeParameters;
	input?: HarnessInputItem[];
}

export interface OperationSamples {
	/** Folder under nodes/ */
	nodeDir: string;
	nodeType: INodeType;
	/** The operation parameter's value; undefined for a node without one (its schema is output.json). */
	operation?: string;
	runs: (sim: Simulator) => SampleRun[];
}

const POLL_FAST = { pollIntervalSeconds: 0.1, waitTimeoutMinutes: 1 };
const imageFile = (sim: Simulator) => `${sim.url}/files/images/schema-input.png`;
const imageFromUrl = (sim: Simulator) => ({ imageSource: 'url', imageUrl: imageFile(sim) });
const photoItem: HarnessInputItem = {
	json: {},
	binary: { photo: { data: PNG_BASE64, mimeType: 'image/png', fileName: 'p.png' } },
};

const image = new MediaGatewayImage();
const video = new MediaGatewayVideo();
const storyboard = new MediaGatewayStoryboard();
const character = new MediaGatewayCharacter();

/** "Return Task at Once" and "Wait Until Done" ("Wait for Callback" resumes with the same item). */
function taskVariants(base: INodeParameters): SampleRun[] {
	return [
		{ variant: 'Return Task at Once', parameters: { ...base, completion: 'returnTask' } },
		{ variant: 'Wait Until Done', parameters: { ...base, completion: 'poll', ...POLL_FAST } },
	];
}

export const ACTION_SAMPLES: OperationSamples[] = [
	{
		nodeDir: 'MediaGatewayImage',
		nodeType: image,
		operation: 'generate',
		runs: () => [
			{
				variant: 'Generate',
				parameters: { operation: 'generate', prompt: 'A lighthouse at dawn' },
			},
		],
	},
	{
		nodeDir: 'MediaGatewayImage',
		nodeType: image,
		operation: 'edit',
		runs: (sim) => [
			{
				variant: 'Edit',
				parameters: { operation: 'edit', prompt: 'Add a hat', ...imageFromUrl(sim) },
			},
		],
	},
	{
		nodeDir: 'MediaGatewayImage',
		nodeType: image,
		operation: 'remix',
		runs: (sim) => [
			{
				variant: 'Remix',
				parameters: {
					operation: 'remix',
					prompt: 'At night',
					imageWeight: 60,
					...imageFromUrl(sim),
				},
			},
		],
	},
	{
		nodeDir: 'MediaGatewayImage',
		nodeType: image,
		operation: 'reframe',
		runs: (sim) => [
			{
				variant: 'Reframe',
				parameters: { operation: 'reframe', resolution: '1536x640', ...imageFromUrl(sim) },
			},
		],
	},
	{
		nodeDir: 'MediaGatewayImage',
		nodeType: image,
		operation: 'replaceBackground',
		runs: () => [
			{
				variant: 'Replace Background',
				parameters: {
					operation: 'replaceBackground',
					prompt: 'A beach',
					imageSource: 'binary',
					imageBinaryField: 'photo',
				},
				input: [photoItem],
			},
		],
	},
	{
		nodeDir: 'MediaGatewayVideo',
		nodeType: video,
		operation: 'create',
		runs: (sim) =>
			taskVariants({
				operation: 'create',
				model: 'vidmodel',
				prompt: 'A paper boat on a rainy street',
				size: '1280x720',
				duration: 5,
				referenceImageSource: 'url',
				referenceImageUrl: imageFile(sim),
			}),
	},
	{
		nodeDir: 'MediaGatewayVideo',
		nodeType: video,
		operation: 'createUnified',
		runs: () =>
			taskVariants({
				operation: 'createUnified',
				model: 'vidmodel',
				prompt: 'A lighthouse at dusk',
				aspectRatio: '16:9',
			}),
	},
	{
		nodeDir: 'MediaGatewayVideo',
		nodeType: video,
		operation: 'get',
		// The task id comes from a create run made just before (see runTaskIdRuns).
		runs: () => [
			{
				variant: 'Get Task (finished)',
				parameters: { operation: 'get', taskId: '={{ $json.taskId }}' },
			},
		],
	},
	{
		nodeDir: 'MediaGatewayVideo',
		nodeType: video,
		operation: 'wait',
		runs: () => [
			{
				variant: 'Wait for Task',
				parameters: { operation: 'wait', taskId: '={{ $json.taskId }}', ...POLL_FAST },
			},
		],
	},
	{
		nodeDir: 'MediaGatewayStoryboard',
		nodeType: storyboard,
		operation: 'create',
		runs: () =>
			taskVariants({
				operation: 'create',
				scenesInput: 'list',
				scenes: {
					scene: [
						{ prompt: 'A door opens', duration: 2 },
						{ prompt: 'A cat walks in', duration: 3 },
					],
				},
				model: 'vidmodel',
				size: '1280x720',
			}),
	},
	{
		nodeDir: 'MediaGatewayCharacter',
		nodeType: character,
		operation: 'create',
		runs: (sim) => [
			{
				variant: 'Create',
				parameters: {
					operation: 'create',
					name: 'Captain Mira',
					description: 'Short silver hair, navy pea coat',
					referenceImages: { image: [{ source: 'url', url: imageFile(sim) }] },
				},
			},
		],
	},
];

/** Operations that read an existing task get one from a task created (and finished) here. */
const NEEDS_TASK = new Set(['get', 'wait']);

/** Output items of every run of one operation; throws when a run fails. */
export async function collectSamples(
	sim: Simulator,
	samples: OperationSamples,
): Promise<IDataObject[]> {
	const items: IDataObject[] = [];
	for (const run of samples.runs(sim)) {
		let input = run.input;
		if (samples.nodeType === video && NEEDS_TASK.has(String(run.parameters.operation))) {
			const created = await runGateway(sim, video, {
				operation: 'createUnified',
				model: 'vidmodel',
				prompt: 'A task to read back',
				aspectRatio: '16:9',
				completion: 'poll',
				...POLL_FAST,
			});
			if (created.error)
				throw new Error(`creating a task for ${run.variant} failed: ${created.error.message}`);
			input = [{ json: { taskId: created.items[0].json.taskId as string } }];
		}
		const result = await runGateway(sim, samples.nodeType, run.parameters, { input });
		if (result.error) {
			throw new Error(
				`${samples.nodeDir} ${run.variant} failed: ${result.error.message} ${result.error.description ?? ''}`,
			);
		}
		if (result.items.length === 0)
			throw new Error(`${samples.nodeDir} ${run.variant} output no item`);
		items.push(...result.items.map((item) => item.json));
	}
	return items;
}

/**
 * The trigger's items for the documented callbacks: every kind, success, failure and progress, without a
 * credential, and a final video callback confirmed with the gateway (the default once a credential is
 * selected), which adds the gateway's own `video` object.
 */
export async function triggerSamples(sim: Simulator): Promise<IDataObject[]> {
	const created = await runGateway(sim, video, {
		operation: 'createUnified',
		model: 'vidmodel',
		prompt: 'A task whose callback the trigger confirms',
		aspectRatio: '16:9',
		completion: 'poll',
		...POLL_FAST,
	});
	if (created.error) throw new Error(`creating a task to confirm failed: ${created.error.message}`);
	const confirmed = { ...videoSuccess(), id: String(created.items[0].json.taskId) };
	const calls: Array<{ body: IDataObject; options: WebhookOptions }> = [
		...[imageSuccess(), imageFailure(), videoSuccess(), videoProcessing(), musicComplete()].map(
			(body) => ({
				body: body as IDataObject,
				options: { parameters: { finalOnly: false } },
			}),
		),
		{
			body: confirmed,
			options: { parameters: { finalOnly: false }, gateway: { baseUrl: sim.url, apiKey: API_KEY } },
		},
	];
	const items: IDataObject[] = [];
	for (const { body, options } of calls) {
		const call = await callWebhook({ body }, options);
		const json = call.result.workflowData?.[0]?.[0]?.json;
		if (!json)
			throw new Error(
				`the trigger started nothing for a ${String(body.status)} callback: ${JSON.stringify(call.res.body)}`,
			);
		items.push(json);
	}
	return items;
}

/** The values of a node's `operation` parameter (every one needs a schema). */
export function operationValues(nodeType: INodeType): string[] {
	const property = nodeType.description.properties.find(
		(p: INodeProperties) => p.name === 'operation',
	);
	return (property?.options ?? []).map((option) => String((option as { value: unknown }).value));
}
