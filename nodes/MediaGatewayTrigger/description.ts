/**
 * What the Media Gateway Trigger shows in the editor besides its identity (in the node class): its
 * panel help, its webhook and every field. Field labels
 * are written once here (LABEL) and used by the panel and by every message that names a field.
 * The callbacks it receives are described in docs/gateway-interface.md (section Callbacks).
 */
import type { INodeTypeDescription } from 'n8n-workflow';

import { DEDUPE_MAX_ENTRIES_LIMIT } from './dedupe';

/** The label of every field, as the panel shows it and as messages name it. */
export const LABEL = {
	kinds: 'Kinds',
	finalOnly: 'Final Statuses Only',
	taskIds: 'Task ID Filter',
	ignoreDuplicates: 'Ignore Duplicates',
	authentication: 'Authentication',
	secretToken: 'Secret Token',
	queryParameterName: 'Query Parameter Name',
	headerName: 'Header Name',
	confirmVideoCallbacks: 'Confirm Video Callbacks',
	options: 'Options',
	duplicateWindowHours: 'Duplicate Memory (Hours)',
	duplicateMemorySize: 'Duplicate Memory Size',
} as const;

/** The Authentication option a user's Secret Token instructions refer to. */
const QUERY_TOKEN_OPTION = 'Secret Token in URL';

export const DEFAULT_HEADER_NAME = 'X-Callback-Token';
export const DEFAULT_QUERY_NAME = 'token';

const SECURITY_NOTICE =
	'<b>Who can start this workflow?</b> The gateway does not sign callbacks, and anyone who learns the URL can post to it. ' +
	'With a credential selected, final <b>video</b> callbacks are confirmed with the gateway before anything starts. ' +
	`<b>Image and music</b> callbacks cannot be confirmed that way: only the ${LABEL.secretToken} below protects them. ` +
	'A token in the URL is exactly as secret as the URL itself (it travels to the gateway with every task and may appear in its logs).';

const PRODUCTION_URL_NOTICE =
	'Paste this node\'s <b>Production URL</b> (under "Webhook URLs" above) into the <b>Callback URL</b> field of the Media Gateway nodes, or send it to the gateway as <code>notifyHook</code>, then publish (activate) the workflow. ' +
	'Do not use the Test URL: it only listens while the editor waits for a test event (about two minutes) and stops after the first callback that starts an execution, so a video that finishes minutes later would find nobody listening, and the gateway gives up after three retries.';

/** The panel's help while the trigger waits for a test event and once the workflow is published. */
export const triggerPanel: INodeTypeDescription['triggerPanel'] = {
	header: '',
	executionsHelp: {
		inactive:
			'<b>While building</b>, click "Listen for test event" and send one callback to the Test URL; it stops listening after about two minutes or after the first callback that starts an execution.<br /><br /><b>For real tasks</b>, paste the Production URL into the Callback URL of the Media Gateway nodes (or notifyHook) and publish the workflow: videos finish minutes later, when only the Production URL is still listening.',
		active:
			'The workflow is published: callbacks sent to the Production URL start executions that show up in the <a data-key="executions">executions list</a>, not in the editor. Use the Production URL as Callback URL / notifyHook.',
	},
	activationHint:
		'Publish the workflow and use its Production URL as Callback URL, so callbacks that arrive minutes later still start it.',
};

export const webhooks: INodeTypeDescription['webhooks'] = [
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
];

export const properties: INodeTypeDescription['properties'] = [
	{
		displayName: PRODUCTION_URL_NOTICE,
		name: 'productionUrlNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: LABEL.kinds,
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
		displayName: LABEL.finalOnly,
		name: 'finalOnly',
		type: 'boolean',
		default: true,
		description:
			'Whether only callbacks of finished tasks (success or failure) start the workflow. Progress callbacks (queued, running, unknown status words) are answered 200 and ignored.',
	},
	{
		displayName: LABEL.taskIds,
		name: 'taskIds',
		type: 'string',
		default: '',
		placeholder: 'e.g. task_123, task_456',
		description:
			'Only callbacks of these task IDs (comma-separated) start the workflow. Leave empty to accept every task.',
	},
	{
		displayName: LABEL.ignoreDuplicates,
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
		displayName: LABEL.authentication,
		name: 'authentication',
		type: 'options',
		options: [
			{
				name: 'None',
				value: 'none',
				description:
					'Anyone who knows the URL can start the workflow with an image or music callback',
			},
			{
				name: QUERY_TOKEN_OPTION,
				value: 'queryToken',
				description: 'Append ?token=YOUR_SECRET to the Production URL you paste as Callback URL',
			},
			{
				name: 'Secret Token in Header',
				value: 'headerToken',
				description:
					'A proxy in front of n8n (or your own sender) adds a header carrying the secret',
			},
		],
		default: 'none',
		description:
			'The gateway does not sign its callbacks. A secret token that only you and the callback URL know keeps others from starting the workflow. Missing or wrong tokens get 401 and start nothing. A token in the URL is as secret as the URL itself.',
	},
	{
		displayName: LABEL.secretToken,
		name: 'secretToken',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		required: true,
		displayOptions: { show: { authentication: ['queryToken', 'headerToken'] } },
		description: `A long random value. For "${QUERY_TOKEN_OPTION}", append it to the Production URL: https://…/webhook/…/webhook?token=THIS_VALUE.`,
	},
	{
		displayName: LABEL.queryParameterName,
		name: 'queryParameterName',
		type: 'string',
		default: DEFAULT_QUERY_NAME,
		displayOptions: { show: { authentication: ['queryToken'] } },
		description: 'Name of the query parameter that carries the secret token',
	},
	{
		displayName: LABEL.headerName,
		name: 'headerName',
		type: 'string',
		default: DEFAULT_HEADER_NAME,
		displayOptions: { show: { authentication: ['headerToken'] } },
		description: 'Name of the request header that carries the secret token',
	},
	{
		displayName: LABEL.confirmVideoCallbacks,
		name: 'confirmVideoCallbacks',
		type: 'boolean',
		default: true,
		description:
			"Whether a final video callback is checked with the gateway (GET /v1/videos/{ID} with the selected Media Gateway API credential) before it starts anything. The output then carries the gateway's own status and video URL; a callback the gateway does not confirm gets 403 or 409 and starts nothing. Applies only when a credential is selected.",
	},
	{
		displayName: LABEL.options,
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: LABEL.duplicateWindowHours,
				name: 'duplicateWindowHours',
				type: 'number',
				typeOptions: { minValue: 0.01, maxValue: 720, numberPrecision: 2 },
				default: 24,
				description: `How long an accepted callback is remembered for ${LABEL.ignoreDuplicates}. The gateway retries within about two minutes.`,
			},
			{
				displayName: LABEL.duplicateMemorySize,
				name: 'duplicateMemorySize',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: DEDUPE_MAX_ENTRIES_LIMIT, numberPrecision: 0 },
				default: 1000,
				description: `How many accepted callbacks are remembered for ${LABEL.ignoreDuplicates}; the oldest are forgotten first. Kept in the workflow's static data.`,
			},
		],
	},
];
