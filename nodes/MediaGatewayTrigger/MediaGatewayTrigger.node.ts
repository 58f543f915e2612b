import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { CALLBACK_KINDS, isJsonContentType, parseCallback } from '../shared/gateway/callbacks';
import type { CallbackItem, CallbackKind } from '../shared/gateway/callbacks';
import { CREDENTIAL_TYPE } from '../shared/transport/credentials';
import {
	DEDUPE_DEFAULTS,
	DEDUPE_MAX_ENTRIES_LIMIT,
	asDedupeStore,
	claimInFlight,
	createDedupeStore,
	dedupeKey,
	mergeKeys,
	forgetProcessDedupeStore,
	processDedupeStore,
	pruneDedupe,
	rememberKey,
	seenRecently,
} from '../shared/dedupe';
import type { DedupeLimits, DedupeStore } from '../shared/dedupe';
import { isFinalState } from '../shared/gateway/status';
import { headerValue, queryValue, secretsMatch } from '../shared/secret';
import { answerOnceStarted } from './acknowledgement';
import { confirmVideoCallback } from './confirmation';
import type { TriggerItem } from './confirmation';

/** The body every callback that passes authentication and validation gets, with status 200. */
const RECEIVED = { received: true } as const;

const DEFAULT_HEADER_NAME = 'X-Callback-Token';
const DEFAULT_QUERY_NAME = 'token';

const SECURITY_NOTICE =
	'<b>Who can start this workflow?</b> The gateway does not sign callbacks, and anyone who learns the URL can post to it. ' +
	'With a credential selected, final <b>video</b> callbacks are confirmed with the gateway before anything starts. ' +
	'<b>Image and music</b> callbacks cannot be confirmed that way: only the Secret Token below protects them. ' +
	'A token in the URL is exactly as secret as the URL itself (it travels to the gateway with every task and may appear in its logs).';

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
		// Optional: only used to confirm final video callbacks with the gateway.
		credentials: [{ name: CREDENTIAL_TYPE, required: false }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// Answered by n8n from `webhookResponse`: accepted callbacks once the execution has started
				// (see acknowledgement.ts), ignored and duplicate ones at once. Refusals by webhook() itself.
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
				displayName: SECURITY_NOTICE,
				name: 'securityNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Authentication',
				name: 'authentication',
				type: 'options',
				options: [
					{
						name: 'None',
						value: 'none',
						description: 'Anyone who knows the URL can start the workflow with an image or music callback',
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
					'The gateway does not sign its callbacks. A secret token that only you and the callback URL know keeps others from starting the workflow. Missing or wrong tokens get 401 and start nothing. A token in the URL is as secret as the URL itself.',
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
				displayName: 'Confirm Video Callbacks',
				name: 'confirmVideoCallbacks',
				type: 'boolean',
				default: true,
				description:
					'Whether a final video callback is checked with the gateway (GET /v1/videos/{ID} with the selected Media Gateway API credential) before it starts anything. The output then carries the gateway\'s own status and video URL; a callback the gateway does not confirm gets 403 or 409 and starts nothing. Applies only when a credential is selected.',
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
		// Refusals are answered here and return noWebhookResponse, so n8n starts no execution.
		const refuse = (code: 400 | 401 | 403 | 409 | 415 | 503, error: string): IWebhookResponseData => {
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
				return refuse(401, presented === undefined ? 'missing callback token' : 'invalid callback token');
			}
		}

		// Callbacks are JSON (spec); n8n would turn a form-encoded body into fields that pass as one.
		if (!isJsonContentType(headerValue(this.getHeaderData() as Record<string, unknown>, 'content-type'))) {
			return refuse(415, 'unsupported content type: callbacks are sent as application/json');
		}

		const parsed = parseCallback(this.getBodyData() as unknown);
		if (!parsed.ok) return refuse(400, parsed.reason);
		const callback = parsed.item;

		const ignored = filterOut(this, callback);
		if (ignored) return { webhookResponse: { ...RECEIVED, ignored } };

		const confirm =
			callback.kind === 'video' &&
			isFinalState(callback.state) &&
			(this.getNodeParameter('confirmVideoCallbacks', true) as boolean) &&
			Boolean(this.getNode().credentials?.[CREDENTIAL_TYPE]);
		const start = async (): Promise<{ item: TriggerItem } | { refusal: IWebhookResponseData }> => {
			if (!confirm) return { item: { ...callback, confirmed: false, video: null } };
			const confirmation = await confirmVideoCallback(this, callback);
			return confirmation.ok ? { item: confirmation.item } : { refusal: refuse(confirmation.code, confirmation.reason) };
		};

		if (!(this.getNodeParameter('ignoreDuplicates', true) as boolean)) {
			const outcome = await start();
			if ('refusal' in outcome) return outcome.refusal;
			return { workflowData: [[{ json: outcome.item as unknown as IDataObject }]], webhookResponse: { ...RECEIVED } };
		}

		// The key is built from the callback as sent, so every retry of it maps to the same key.
		const key = dedupeKey([callback.kind, callback.taskId, callback.status, callback.progress]);
		const scope = dedupeScope(this);
		const limits = dedupeLimits(this);
		const data = this.getWorkflowStaticData('node');
		// Two memories: this process's (sees concurrent requests) and static data (survives restarts
		// and is shared by every process of a queue-mode setup).
		const memory = processDedupeStore(scope);
		const stored = asDedupeStore(data.dedupe);
		const now = Date.now();
		pruneDedupe(memory, now, limits);
		const pruned = pruneDedupe(stored, now, limits) > 0;
		// Puts back this process's keys that a concurrent save by another process dropped.
		const restored = mergeKeys(stored, memory, now, limits) > 0;
		if (pruned || restored) data.dedupe = store(stored);
		if (seenRecently(memory, key, now, limits) || seenRecently(stored, key, now, limits)) {
			return { webhookResponse: { ...RECEIVED, ignored: 'duplicate' } };
		}
		const claim = claimInFlight(scope, key);
		if (!claim) return refuse(409, 'this callback is being processed already; retry later');
		// Whatever happens next (confirmation refused, answered, failed to start, caller gone, even
		// during the confirmation), the claim ends with the request.
		let callerGone = false;
		res.once('close', () => {
			callerGone = true;
			claim.release();
		});

		// start() does not throw (the confirmation turns every failure into an answer); should it ever,
		// the claim must not outlive the request, or every retry of this callback would get 409.
		const outcome = await start().catch(() => ({
			refusal: refuse(503, 'the callback could not be checked; retry later'),
		}));
		if ('refusal' in outcome) {
			claim.release();
			return outcome.refusal;
		}
		// The gateway stopped waiting during the confirmation: it counts this delivery as failed and
		// sends it again, and that retry (already free to claim the key) is the one to start it.
		if (callerGone) return { noWebhookResponse: true };
		return answerOnceStarted([[{ json: outcome.item as unknown as IDataObject }]], { ...RECEIVED }, () => {
			// The execution exists: from now on a repeat of this callback is a duplicate.
			const at = Date.now();
			rememberKey(memory, key, at, limits);
			rememberKey(stored, key, at, limits);
			mergeKeys(stored, memory, at, limits);
			// Reassigning marks static data as changed, so n8n saves it before the answer goes out.
			data.dedupe = store(stored);
			claim.release();
		});
	}
}

function store(value: DedupeStore): IDataObject {
	return value as unknown as IDataObject;
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
