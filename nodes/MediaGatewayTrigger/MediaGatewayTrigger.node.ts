import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { CALLBACK_KINDS, parseCallback } from '../shared/callbacks';
import type { CallbackItem, CallbackKind } from '../shared/callbacks';
import {
	DEDUPE_DEFAULTS,
	DEDUPE_MAX_ENTRIES_LIMIT,
	asDedupeStore,
	checkAndRemember,
	createDedupeStore,
	dedupeKey,
	mergeKeys,
	forgetProcessDedupeStore,
	processDedupeStore,
} from '../shared/dedupe';
import type { DedupeLimits } from '../shared/dedupe';
import { isFinalState } from '../shared/status';
import { headerValue, queryValue, secretsMatch } from '../shared/secret';

/** The body every callback that passes authentication and validation gets, with status 200. */
const RECEIVED = { received: true } as const;

const DEFAULT_HEADER_NAME = 'X-Callback-Token';
const DEFAULT_QUERY_NAME = 'token';

const PRODUCTION_URL_NOTICE =
	'Paste this node\'s <b>Production URL</b> (under "Webhook URLs" above) into the <b>Callback URL</b> field of the Media Gateway nodes, or send it to the gateway as <code>notifyHook</code>, then publish (activate) the workflow. ' +
	'Do not use the Test URL: it only listens while the editor waits for a test event (about two minutes) and stops after the first callback that starts an execution, so a video that finishes minutes later would find nobody listening, and the gateway gives up after three retries.';

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
		triggerPanel: {
			header: '',
			executionsHelp: {
				inactive:
					'<b>While building</b>, click "Listen for test event" and send one callback to the Test URL; it stops listening after about two minutes or after the first callback that starts an execution.<br /><br /><b>For real tasks</b>, paste the Production URL into the Callback URL of the Media Gateway nodes (or notifyHook) and publish the workflow: videos finish minutes later, when only the Production URL is still listening.',
				active:
					'The workflow is published: callbacks sent to the Production URL start executions that show up in the <a data-key="executions">executions list</a>, not in the editor. Use the Production URL as Callback URL / notifyHook.',
			},
			activationHint:
				'Publish the workflow and use its Production URL as Callback URL, so callbacks that arrive minutes later still start it.',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// Answered on receipt: accepted callbacks by webhook() itself, before the execution starts;
				// ignored and duplicate ones by n8n from `webhookResponse`.
				responseMode: 'onReceived',
				// An empty responseData makes n8n send `webhookResponse` ({"received":true,…}) instead of
				// its default, the literal text "firstEntryJson".
				responseData: '',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName: PRODUCTION_URL_NOTICE,
				name: 'productionUrlNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Kinds',
				name: 'kinds',
				type: 'multiOptions',
				options: [
					{ name: 'Image', value: 'image', description: 'Image generation task callbacks' },
					{ name: 'Music', value: 'music', description: 'Music generation task callbacks' },
					{ name: 'Video', value: 'video', description: 'Video generation task callbacks' },
				],
				default: ['image', 'video', 'music'],
				description:
					'Which task callbacks start the workflow. Others are answered 200 and ignored. Leave empty to accept all.',
			},
			{
				displayName: 'Final Statuses Only',
				name: 'finalOnly',
				type: 'boolean',
				default: true,
				description:
					'Whether only callbacks of finished tasks (success or failure) start the workflow. Progress callbacks (queued, running, unknown status words) are answered 200 and ignored.',
			},
			{
				displayName: 'Task ID Filter',
				name: 'taskIds',
				type: 'string',
				default: '',
				placeholder: 'e.g. task_123, task_456',
				description:
					'Only callbacks of these task IDs (comma-separated) start the workflow. Leave empty to accept every task.',
			},
			{
				displayName: 'Ignore Duplicates',
				name: 'ignoreDuplicates',
				type: 'boolean',
				default: true,
				description:
					'Whether a callback with the same kind, task ID, status and progress as one accepted recently is answered 200 without starting the workflow again (the gateway retries callbacks it thinks failed)',
			},
			{
				displayName: 'Authentication',
				name: 'authentication',
				type: 'options',
				options: [
					{
						name: 'None',
						value: 'none',
						description: 'Anyone who knows the URL can start the workflow',
					},
					{
						name: 'Secret Token in URL',
						value: 'queryToken',
						description: 'Append ?token=YOUR_SECRET to the Production URL you paste as Callback URL',
					},
					{
						name: 'Secret Token in Header',
						value: 'headerToken',
						description: 'A proxy in front of n8n (or your own sender) adds a header carrying the secret',
					},
				],
				default: 'none',
				description:
					'The gateway does not sign its callbacks. A secret token that only you and the callback URL know keeps others from starting the workflow. Missing or wrong tokens get 401 and start nothing.',
			},
			{
				displayName: 'Secret Token',
				name: 'secretToken',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				required: true,
				displayOptions: { show: { authentication: ['queryToken', 'headerToken'] } },
				description:
					'A long random value. For "Secret Token in URL", append it to the Production URL: https://…/webhook/…/webhook?token=THIS_VALUE.',
			},
			{
				displayName: 'Query Parameter Name',
				name: 'queryParameterName',
				type: 'string',
				default: DEFAULT_QUERY_NAME,
				displayOptions: { show: { authentication: ['queryToken'] } },
				description: 'Name of the query parameter that carries the secret token',
			},
			{
				displayName: 'Header Name',
				name: 'headerName',
				type: 'string',
				default: DEFAULT_HEADER_NAME,
				displayOptions: { show: { authentication: ['headerToken'] } },
				description: 'Name of the request header that carries the secret token',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Duplicate Memory (Hours)',
						name: 'duplicateWindowHours',
						type: 'number',
						typeOptions: { minValue: 0.01, maxValue: 720, numberPrecision: 2 },
						default: 24,
						description:
							'How long an accepted callback is remembered for Ignore Duplicates. The gateway retries within about two minutes.',
					},
					{
						displayName: 'Duplicate Memory Size',
						name: 'duplicateMemorySize',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: DEDUPE_MAX_ENTRIES_LIMIT, numberPrecision: 0 },
						default: 1000,
						description:
							'How many accepted callbacks are remembered for Ignore Duplicates; the oldest are forgotten first. Kept in the workflow\'s static data.',
					},
				],
			},
		],
	};

	// The gateway has no registration API: the callback URL travels with each request as notifyHook.
	// What "registering" means here is recording what the node needs in its static data, so n8n's
	// checkExists/create/delete cycle keeps the duplicate memory across restarts and clears it on
	// deactivation.
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const data = this.getWorkflowStaticData('node');
				const url = this.getNodeWebhookUrl('default');
				return typeof data.registeredUrl === 'string' && data.registeredUrl === url;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const url = this.getNodeWebhookUrl('default');
				if (!url) {
					throw new NodeOperationError(this.getNode(), 'n8n gave this node no webhook URL to listen on');
				}
				const authentication = this.getNodeParameter('authentication', 'none') as string;
				if (authentication !== 'none') {
					const secret = this.getNodeParameter('secretToken', '') as string;
					if (typeof secret !== 'string' || secret.length === 0) {
						throw new NodeOperationError(this.getNode(), 'The Secret Token is empty', {
							description:
								'Enter a secret token, or set Authentication to None. With an empty token every callback would be rejected with 401.',
						});
					}
				}
				const data = this.getWorkflowStaticData('node');
				data.registeredUrl = url;
				data.authentication = authentication;
				data.registeredAt = new Date().toISOString();
				data.dedupe = createDedupeStore() as unknown as IDataObject;
				forgetProcessDedupeStore(dedupeScope(this));
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				const data = this.getWorkflowStaticData('node');
				delete data.registeredUrl;
				delete data.authentication;
				delete data.registeredAt;
				delete data.dedupe;
				forgetProcessDedupeStore(dedupeScope(this));
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const res = this.getResponseObject();
		// Rejections are answered here and return noWebhookResponse, so n8n starts no execution.
		const reject = (code: 400 | 401, error: string): IWebhookResponseData => {
			res.status(code).json({ error });
			return { noWebhookResponse: true };
		};

		// Authentication comes first: an unauthenticated caller learns nothing about the body rules.
		const authentication = this.getNodeParameter('authentication', 'none') as string;
		if (authentication !== 'none') {
			const expected = this.getNodeParameter('secretToken', '') as string;
			const presented =
				authentication === 'headerToken'
					? headerValue(
							this.getHeaderData() as Record<string, unknown>,
							(this.getNodeParameter('headerName', DEFAULT_HEADER_NAME) as string) || DEFAULT_HEADER_NAME,
						)
					: queryValue(
							this.getQueryData(),
							(this.getNodeParameter('queryParameterName', DEFAULT_QUERY_NAME) as string) || DEFAULT_QUERY_NAME,
						);
			if (!secretsMatch(presented, expected)) {
				return reject(401, presented === undefined ? 'missing callback token' : 'invalid callback token');
			}
		}

		const parsed = parseCallback(this.getBodyData() as unknown);
		if (!parsed.ok) return reject(400, parsed.reason);
		const item = parsed.item;

		const ignored = filterOut(this, item);
		if (ignored) return { webhookResponse: { ...RECEIVED, ignored } };

		if (this.getNodeParameter('ignoreDuplicates', true) as boolean) {
			const data = this.getWorkflowStaticData('node');
			const store = asDedupeStore(data.dedupe);
			const key = dedupeKey([item.kind, item.taskId, item.status, item.progress]);
			const now = Date.now();
			const limits = dedupeLimits(this);
			// Two memories: this process's (sees concurrent requests) and static data (survives restarts
			// and is shared by every process of a queue-mode setup).
			const memory = processDedupeStore(dedupeScope(this));
			const local = checkAndRemember(memory, key, now, limits);
			const stored = checkAndRemember(store, key, now, limits);
			// Puts back this process's keys that a concurrent save by another process dropped.
			const restored = mergeKeys(store, memory, now, limits);
			// Reassigning marks static data as changed, so n8n saves it when the answer goes out.
			if (stored.changed || restored > 0) data.dedupe = store as unknown as IDataObject;
			if (local.duplicate || stored.duplicate) return { webhookResponse: { ...RECEIVED, ignored: 'duplicate' } };
		}

		// Answered here, before n8n starts the execution: n8n saves static data when the answer goes
		// out, and starting an execution first (n8n 2.41, WorkflowRunner.establishContextForPersistence)
		// re-wraps static data and clears its "changed" flag, so the key just remembered would never
		// reach the database. It also spares the gateway the wait for the execution to be created.
		res.status(200).json({ ...RECEIVED });
		return {
			workflowData: [[{ json: item as unknown as IDataObject }]],
			noWebhookResponse: true,
		};
	}
}

/** One memory per trigger node of a workflow. */
function dedupeScope(ctx: IWebhookFunctions | IHookFunctions): string {
	return `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}`;
}

/** Why the configured filters drop this callback, or undefined when it passes. */
function filterOut(ctx: IWebhookFunctions, item: CallbackItem): string | undefined {
	const kinds = (ctx.getNodeParameter('kinds', [...CALLBACK_KINDS]) as CallbackKind[]) ?? [];
	if (kinds.length > 0 && !kinds.includes(item.kind)) return `kind ${item.kind} is not selected`;
	if ((ctx.getNodeParameter('finalOnly', true) as boolean) && !isFinalState(item.state)) {
		return 'status is not final';
	}
	const taskIds = String(ctx.getNodeParameter('taskIds', '') ?? '')
		.split(',')
		.map((id) => id.trim())
		.filter((id) => id !== '');
	if (taskIds.length > 0 && !taskIds.includes(item.taskId.trim())) return 'task id is not in the Task ID Filter';
	return undefined;
}

function dedupeLimits(ctx: IWebhookFunctions): DedupeLimits {
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const hours = Number(options.duplicateWindowHours ?? DEDUPE_DEFAULTS.maxAgeMs / 3_600_000);
	const size = Number(options.duplicateMemorySize ?? DEDUPE_DEFAULTS.maxEntries);
	return {
		maxAgeMs: Number.isFinite(hours) && hours > 0 ? hours * 3_600_000 : DEDUPE_DEFAULTS.maxAgeMs,
		maxEntries:
			Number.isFinite(size) && size >= 1
				? Math.min(Math.floor(size), DEDUPE_MAX_ENTRIES_LIMIT)
				: DEDUPE_DEFAULTS.maxEntries,
	};
}
