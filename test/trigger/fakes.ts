/**
 * Test doubles for the trigger: an IWebhookFunctions / IHookFunctions fake with real-looking
 * request and response objects and a static data object, and `answerLikeN8n`, which turns the
 * node's IWebhookResponseData into the HTTP answer the way n8n 2.41.1 does
 * (packages/cli webhooks/webhook-helpers.js executeWebhook + webhook-request-handler.js).
 */
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type {
	IDataObject,
	IHookFunctions,
	INode,
	INodeProperties,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { MediaGatewayTrigger } from '../../nodes/MediaGatewayTrigger/MediaGatewayTrigger.node';

export const trigger = new MediaGatewayTrigger();

export interface FakeResponse extends EventEmitter {
	statusCode: number;
	body: unknown;
	ended: boolean;
	headersSent: boolean;
	headers: Record<string, string>;
	status(code: number): FakeResponse;
	json(body: unknown): FakeResponse;
	send(body: unknown): FakeResponse;
	end(): FakeResponse;
	setHeader(name: string, value: string): FakeResponse;
}

/** Emits 'close' once the answer is complete, as Node.js's ServerResponse does. */
export function fakeResponse(): FakeResponse {
	const res: FakeResponse = Object.assign(new EventEmitter(), {
		statusCode: 200,
		body: undefined,
		ended: false,
		headersSent: false,
		headers: {},
		status(code: number) {
			if (res.headersSent) throw new Error('status() after the answer was sent');
			res.statusCode = code;
			return res;
		},
		json(body: unknown) {
			if (res.headersSent) throw new Error('json() after the answer was sent');
			res.headers['content-type'] = 'application/json; charset=utf-8';
			// What express does: serialise now, so later mutation of `body` cannot change the answer.
			res.body = JSON.parse(JSON.stringify(body ?? null));
			res.headersSent = true;
			res.ended = true;
			return res;
		},
		send(body: unknown) {
			if (res.headersSent) throw new Error('send() after the answer was sent');
			res.body = body;
			res.headersSent = true;
			res.ended = true;
			return res;
		},
		end() {
			res.ended = true;
			res.headersSent = true;
			return res;
		},
		setHeader(name: string, value: string) {
			res.headers[name.toLowerCase()] = value;
			return res;
		},
	} as Omit<FakeResponse, keyof EventEmitter>) as FakeResponse;
	return res;
}

/** Parameter values as n8n hands them to a node: declared defaults, overridden by the user's. */
export function parametersWithDefaults(overrides: IDataObject = {}): IDataObject {
	const values: IDataObject = {};
	for (const property of trigger.description.properties as INodeProperties[]) {
		if (property.type === 'notice') continue;
		values[property.name] = property.default as IDataObject[string];
	}
	return { ...values, ...overrides };
}

export interface FakeRequest {
	body?: unknown;
	headers?: Record<string, string | string[] | undefined>;
	query?: Record<string, unknown>;
}

export interface WebhookCall {
	result: IWebhookResponseData;
	res: FakeResponse;
	staticData: IDataObject;
}

export const NODE: INode = {
	id: '6f1c8d4e-0000-4000-8000-000000000001',
	name: 'Media Gateway Trigger',
	type: 'n8n-nodes-media-gateway.mediaGatewayTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
	webhookId: 'b7d6a1b0-1111-4222-8333-444455556666',
};

/**
 * One workflow per static data object: tests that share static data model one workflow, and so
 * share the trigger's in-process duplicate memory too; tests with fresh static data do not.
 */
const workflowIds = new WeakMap<IDataObject, string>();
let nextWorkflowId = 1;
function workflowFor(staticData: IDataObject) {
	let id = workflowIds.get(staticData);
	if (!id) {
		id = `wf-${nextWorkflowId++}`;
		workflowIds.set(staticData, id);
	}
	return { id, name: 'Callbacks', active: true };
}

function fakeGetNodeParameter(parameters: IDataObject) {
	return (name: string, fallback?: unknown): unknown => {
		if (Object.prototype.hasOwnProperty.call(parameters, name)) return parameters[name];
		if (fallback !== undefined) return fallback;
		throw new Error(`Could not get parameter "${name}"`);
	};
}

/**
 * `workflowId` pins the workflow id (and so the in-process duplicate memory's scope), for tests that
 * load a fresh static data object per request, as n8n does.
 */
export interface FakeGateway {
	baseUrl: string;
	apiKey: string;
}

export interface WebhookOptions {
	parameters?: IDataObject;
	staticData?: IDataObject;
	res?: FakeResponse;
	workflowId?: string;
	/** A Media Gateway API credential selected on the node, and what it holds. */
	gateway?: FakeGateway;
}

/**
 * n8n's httpRequestWithAuthentication as far as the transport uses it: the credential's Bearer header,
 * JSON, the full response, status errors ignored, the abort signal and the timeout honoured.
 */
function fakeHttpRequestWithAuthentication(gateway: FakeGateway) {
	return async (_type: string, options: IDataObject): Promise<unknown> => {
		const signals = [AbortSignal.timeout(Number(options.timeout ?? 60_000))];
		if (options.abortSignal) signals.push(options.abortSignal as AbortSignal);
		const response = await fetch(String(options.url), {
			method: String(options.method ?? 'GET'),
			headers: {
				...(options.headers as Record<string, string>),
				Authorization: `Bearer ${gateway.apiKey}`,
			},
			body: options.body === undefined ? undefined : JSON.stringify(options.body),
			signal: AbortSignal.any(signals),
		});
		const text = await response.text();
		let body: unknown = text;
		try {
			body = JSON.parse(text);
		} catch {
			// not JSON: kept as text, as n8n does
		}
		return { statusCode: response.status, headers: Object.fromEntries(response.headers), body };
	};
}

export function webhookContext(
	request: FakeRequest,
	options: WebhookOptions = {},
): { ctx: IWebhookFunctions; res: FakeResponse; staticData: IDataObject } {
	const res = options.res ?? fakeResponse();
	const staticData = options.staticData ?? {};
	const parameters = parametersWithDefaults(options.parameters);
	// Node.js lower-cases incoming header names.
	const headers: Record<string, string | string[] | undefined> = {};
	for (const [name, value] of Object.entries(request.headers ?? {}))
		headers[name.toLowerCase()] = value;
	const req = {
		method: 'POST',
		body: request.body,
		headers: { 'content-type': 'application/json', ...headers },
		query: request.query ?? {},
		params: {},
	};
	const gateway = options.gateway;
	const credentials = gateway
		? { mediaGatewayApi: { id: 'cred-1', name: 'Media Gateway' } }
		: undefined;
	const ctx = {
		getNode: () => ({ ...NODE, parameters, credentials }),
		getCredentials: async (type: string) => {
			if (!gateway || type !== 'mediaGatewayApi')
				throw new Error('Node does not have any credentials set');
			return { apiKey: gateway.apiKey, baseUrl: gateway.baseUrl };
		},
		helpers: gateway
			? { httpRequestWithAuthentication: fakeHttpRequestWithAuthentication(gateway) }
			: {},
		getWorkflow: () =>
			options.workflowId
				? { id: options.workflowId, name: 'Callbacks', active: true }
				: workflowFor(staticData),
		getMode: () => 'webhook',
		getNodeParameter: fakeGetNodeParameter(parameters),
		getWorkflowStaticData: (type: string) => {
			if (type !== 'node') throw new Error(`unexpected static data type ${type}`);
			return staticData;
		},
		getRequestObject: () => req,
		getResponseObject: () => res,
		getBodyData: () => req.body as IDataObject,
		getHeaderData: () => req.headers,
		getQueryData: () => req.query,
		getParamsData: () => req.params,
		getWebhookName: () => 'default',
		getNodeWebhookUrl: () => `http://127.0.0.1:5678/webhook/${NODE.webhookId}/webhook`,
	} as unknown as IWebhookFunctions;
	return { ctx, res, staticData };
}

export async function callWebhook(
	request: FakeRequest,
	options: WebhookOptions = {},
): Promise<WebhookCall> {
	const { ctx, res, staticData } = webhookContext(request, options);
	const result = await trigger.webhook.call(ctx);
	return { result, res, staticData };
}

export function hookContext(options: {
	parameters?: IDataObject;
	staticData?: IDataObject;
	url?: string | undefined;
	mode?: string;
}): { ctx: IHookFunctions; staticData: IDataObject } {
	const staticData = options.staticData ?? {};
	const parameters = parametersWithDefaults(options.parameters);
	const url =
		'url' in options ? options.url : `http://127.0.0.1:5678/webhook/${NODE.webhookId}/webhook`;
	const ctx = {
		getNode: () => ({ ...NODE, parameters }),
		getWorkflow: () => workflowFor(staticData),
		getMode: () => options.mode ?? 'trigger',
		getActivationMode: () => 'activate',
		getNodeParameter: fakeGetNodeParameter(parameters),
		getWorkflowStaticData: () => staticData,
		getNodeWebhookUrl: () => url,
		getWebhookName: () => 'default',
		getWebhookDescription: () => trigger.description.webhooks?.[0],
	} as unknown as IHookFunctions;
	return { ctx, staticData };
}

/* ------------------------------------------------------------- n8n's answer, reproduced */

const N8N_EXTRACTOR = path.resolve(
	__dirname,
	'../../.cache/n8n/node_modules/n8n/dist/webhooks/webhook-on-received-response-extractor.js',
);

/** n8n's own onReceived body extractor when the pinned n8n is installed; else the same logic. */
export const realExtractorAvailable = existsSync(N8N_EXTRACTOR);
type Extractor = (responseData: unknown, result: IWebhookResponseData) => unknown;
const extract: Extractor = realExtractorAvailable
	? // eslint-disable-next-line @typescript-eslint/no-require-imports
		(require(N8N_EXTRACTOR) as { extractWebhookOnReceivedResponse: Extractor })
			.extractWebhookOnReceivedResponse
	: (responseData, result) => {
			if (responseData === 'noData') return undefined;
			if (responseData) return responseData;
			if (result.webhookResponse !== undefined) return result.webhookResponse;
			return { message: 'Workflow was started' };
		};

export interface Answer {
	status: number;
	body: unknown;
	executionStarted: boolean;
}

/**
 * The HTTP answer n8n 2.41.1 gives for this webhook() result, for a webhook description with
 * responseMode 'onReceived' (webhook-helpers.js executeWebhook):
 * - noWebhookResponse: the node already answered through getResponseObject(); nothing more.
 * - no workflowData: 200 with webhookResponse (or {message:'Webhook call received'}); no execution.
 * - workflowData: n8n starts the execution (WorkflowRunner.run), and only then reads the answer:
 *   responseCode (200) with extractWebhookOnReceivedResponse(description.responseData, result).
 *   When the start fails (`startFails`), the answer is n8n's 500 and the answer is never read.
 * In every case the response then closes, as Node.js's does.
 */
export function answerLikeN8n(
	result: IWebhookResponseData,
	res: FakeResponse,
	options: { startFails?: boolean } = {},
): Answer {
	const description = trigger.description.webhooks![0];
	const responseCode = 200;
	const close = (answer: Answer): Answer => {
		res.emit('close');
		return answer;
	};
	if (result.noWebhookResponse === true) {
		if (!res.headersSent)
			throw new Error('noWebhookResponse without having answered: the caller would hang');
		return close({
			status: res.statusCode,
			body: res.body,
			executionStarted: result.workflowData !== undefined,
		});
	}
	if (result.workflowData === undefined) {
		return close({
			status: responseCode,
			body:
				result.webhookResponse !== undefined
					? result.webhookResponse
					: { message: 'Webhook call received' },
			executionStarted: false,
		});
	}
	if (options.startFails) {
		return close({
			status: 500,
			body: { code: 0, message: 'There was a problem executing the workflow' },
			executionStarted: false,
		});
	}
	const responseData =
		description.responseData === undefined ? 'firstEntryJson' : description.responseData;
	return close({
		status: responseCode,
		body: extract(responseData, result),
		executionStarted: true,
	});
}
