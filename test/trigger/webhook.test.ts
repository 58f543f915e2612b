import { NodeHelpers, ObservableObject, Workflow } from 'n8n-workflow';
import type { IDataObject, INode, INodeParameters, INodeType, INodeTypes } from 'n8n-workflow';

import {
	answerLikeN8n,
	callWebhook,
	hookContext,
	NODE,
	realExtractorAvailable,
	trigger,
	webhookContext,
} from './fakes';
import type { FakeRequest, WebhookOptions } from './fakes';
import { CALLBACK_LIMITS } from '../../nodes/shared/gateway/callbacks';
import { cpuMs, expectWithin } from './timing';
import {
	imageInProgress,
	imageSuccess,
	musicComplete,
	videoProcessing,
	videoSuccess,
} from './samples';

async function answer(
	request: FakeRequest,
	options: WebhookOptions & { startFails?: boolean } = {},
) {
	const call = await callWebhook(request, options);
	return {
		...answerLikeN8n(call.result, call.res, { startFails: options.startFails }),
		result: call.result,
		staticData: call.staticData,
	};
}

function dedupeKeys(staticData: IDataObject): string[] {
	return Object.keys((staticData.dedupe as { entries?: object } | undefined)?.entries ?? {});
}

describe('description', () => {
	const d = trigger.description;

	it('follows n8n trigger conventions', () => {
		expect(d.name).toBe('mediaGatewayTrigger');
		expect(d.displayName).toBe('Media Gateway Trigger');
		expect(d.group).toEqual(['trigger']);
		expect(d.inputs).toEqual([]);
		expect(d.outputs).toEqual(['main']);
		expect(d.icon).toEqual({
			light: 'file:mediaGatewayTrigger.svg',
			dark: 'file:mediaGatewayTrigger.dark.svg',
		});
		expect(d.subtitle).toBeTruthy();
		expect(d.eventTriggerDescription).toBeTruthy();
		expect(d.activationMessage).toMatch(/Production URL/);
		expect(d.usableAsTool).toBeUndefined();
		// Optional: only used to confirm final video callbacks with the gateway.
		expect(d.credentials).toEqual([{ name: 'mediaGatewayApi', required: false }]);
	});

	it("declares one POST webhook answered on receipt with the node's own body", () => {
		expect(d.webhooks).toEqual([
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				responseData: '',
				path: 'webhook',
			},
		]);
	});

	it('tells the user to paste the Production URL and why the Test URL will not do', () => {
		const notice = d.properties.find((p) => p.type === 'notice');
		expect(notice?.displayName).toMatch(/Production URL/);
		expect(notice?.displayName).toMatch(/Callback URL/);
		expect(notice?.displayName).toMatch(/notifyHook/);
		expect(notice?.displayName).toMatch(/Test URL[^.]*only listens/);
		expect(notice?.displayName).toMatch(/minutes later/);
	});

	it('keeps the secret in a password field', () => {
		const secret = d.properties.find((p) => p.name === 'secretToken');
		expect(secret?.typeOptions?.password).toBe(true);
	});

	it('has n8n-resolvable defaults for every parameter', () => {
		const resolved = NodeHelpers.getNodeParameters(d.properties, {}, true, false, null, d);
		expect(resolved).toMatchObject({
			kinds: ['image', 'video', 'music'],
			finalOnly: true,
			taskIds: '',
			ignoreDuplicates: true,
			authentication: 'none',
			options: {},
		});
	});
});

describe('answering accepted callbacks', () => {
	it.each([
		['image', imageSuccess()],
		['video', videoSuccess()],
		['music', musicComplete()],
	])(
		'starts one execution for a final %s callback and answers 200 {"received":true}',
		async (kind, body) => {
			const a = await answer({ body });
			expect(a.status).toBe(200);
			expect(a.body).toEqual({ received: true });
			expect(a.executionStarted).toBe(true);
			expect(a.result.workflowData).toHaveLength(1);
			expect(a.result.workflowData![0]).toHaveLength(1);
			const json = a.result.workflowData![0][0].json;
			expect(json.kind).toBe(kind);
			expect(json.state).toBe('succeeded');
			expect(json.payload).toEqual(body);
		},
	);

	it('never lets n8n answer with the literal text "firstEntryJson"', async () => {
		const a = await answer({ body: videoSuccess() });
		expect(a.body).not.toBe('firstEntryJson');
		expect(JSON.stringify(a.body)).toBe('{"received":true}');
	});

	(realExtractorAvailable ? it : it.skip)('uses the installed n8n 2.41.1 answer extractor', () => {
		// Guard for answerLikeN8n: with its default responseData n8n would send the literal text.
		const { extractWebhookOnReceivedResponse } = jest.requireActual(
			'../../.cache/n8n/node_modules/n8n/dist/webhooks/webhook-on-received-response-extractor.js',
		) as { extractWebhookOnReceivedResponse: (r: unknown, d: unknown) => unknown };
		expect(
			extractWebhookOnReceivedResponse('firstEntryJson', { webhookResponse: { received: true } }),
		).toBe('firstEntryJson');
		expect(extractWebhookOnReceivedResponse('', { webhookResponse: { received: true } })).toEqual({
			received: true,
		});
	});

	it('leaves the 200 to n8n, which sends it only after it has started the execution', async () => {
		const call = await callWebhook({ body: imageSuccess() });
		// Nothing answered yet, nothing remembered yet: that happens when n8n reads the answer.
		expect(call.res.headersSent).toBe(false);
		expect(call.result.noWebhookResponse).toBeUndefined();
		expect(call.result.workflowData).toHaveLength(1);
		expect(dedupeKeys(call.staticData)).toEqual([]);
		const a = answerLikeN8n(call.result, call.res);
		expect(a).toEqual({ status: 200, body: { received: true }, executionStarted: true });
		expect(dedupeKeys(call.staticData)).toHaveLength(1);
	});
});

describe('at-least-once delivery', () => {
	it('a callback whose execution fails to start gets no 200, is not remembered, and its retry starts it', async () => {
		const staticData: IDataObject = {};
		const failed = await answer({ body: videoSuccess() }, { staticData, startFails: true });
		expect(failed).toMatchObject({ status: 500, executionStarted: false });
		expect(dedupeKeys(staticData)).toEqual([]);
		// The gateway retries (10 s later): this time n8n starts it.
		const retry = await answer({ body: videoSuccess() }, { staticData });
		expect(retry).toMatchObject({ status: 200, body: { received: true }, executionStarted: true });
		// Its next retry (say the 200 was lost on the way) is a duplicate.
		const again = await answer({ body: videoSuccess() }, { staticData });
		expect(again).toMatchObject({
			status: 200,
			body: { received: true, ignored: 'duplicate' },
			executionStarted: false,
		});
	});

	it('a repeat that arrives while the first delivery is still starting gets 409, so the gateway retries it', async () => {
		const staticData: IDataObject = {};
		const first = await callWebhook({ body: musicComplete() }, { staticData });
		const meanwhile = await answer({ body: musicComplete() }, { staticData });
		expect(meanwhile).toMatchObject({
			status: 409,
			body: { error: 'this callback is being processed already; retry later' },
			executionStarted: false,
		});
		expect(answerLikeN8n(first.result, first.res)).toMatchObject({
			status: 200,
			executionStarted: true,
		});
		expect((await answer({ body: musicComplete() }, { staticData })).body).toEqual({
			received: true,
			ignored: 'duplicate',
		});
	});

	it('a repeat that arrives while the first delivery is failing to start is let through once the first has failed', async () => {
		const staticData: IDataObject = {};
		const first = await callWebhook({ body: musicComplete() }, { staticData });
		expect((await answer({ body: musicComplete() }, { staticData })).status).toBe(409);
		expect(answerLikeN8n(first.result, first.res, { startFails: true }).status).toBe(500);
		expect((await answer({ body: musicComplete() }, { staticData })).executionStarted).toBe(true);
	});

	it("a caller that hangs up before the start does not block the callback's retry", async () => {
		const staticData: IDataObject = {};
		const first = await callWebhook({ body: imageSuccess() }, { staticData });
		first.res.emit('close'); // the gateway gave up waiting; n8n has not read the answer (yet)
		expect((await answer({ body: imageSuccess() }, { staticData })).executionStarted).toBe(true);
	});
});

describe('filters', () => {
	it('ignores kinds that are not selected with 200 and no execution', async () => {
		const a = await answer({ body: videoSuccess() }, { parameters: { kinds: ['image', 'music'] } });
		expect(a).toMatchObject({ status: 200, executionStarted: false });
		expect(a.body).toEqual({ received: true, ignored: 'kind video is not selected' });
		expect(a.result.workflowData).toBeUndefined();
	});

	it('accepts every kind when the selection is empty', async () => {
		expect(
			(await answer({ body: musicComplete() }, { parameters: { kinds: [] } })).executionStarted,
		).toBe(true);
	});

	it('ignores progress callbacks when Final Statuses Only is on (default)', async () => {
		for (const body of [
			imageInProgress(),
			videoProcessing(),
			{ ...imageSuccess(), status: 'NOT_START' },
		]) {
			const a = await answer({ body });
			expect(a.body).toEqual({ received: true, ignored: 'status is not final' });
			expect(a.executionStarted).toBe(false);
		}
		const unknownWord = await answer({ body: { ...videoSuccess(), status: 'rendering' } });
		expect(unknownWord.executionStarted).toBe(false);
	});

	it('passes failures as final', async () => {
		const a = await answer({ body: { ...imageSuccess(), status: 'FAILURE', failReason: 'nsfw' } });
		expect(a.executionStarted).toBe(true);
		expect(a.result.workflowData![0][0].json.failReason).toBe('nsfw');
	});

	it('passes progress callbacks when Final Statuses Only is off', async () => {
		const a = await answer({ body: imageInProgress() }, { parameters: { finalOnly: false } });
		expect(a.executionStarted).toBe(true);
		expect(a.result.workflowData![0][0].json).toMatchObject({ state: 'running', progress: 45 });
	});

	it('filters by task id (comma-separated list)', async () => {
		const parameters = { taskIds: ' other-task , vid-task-1 ' };
		expect((await answer({ body: videoSuccess() }, { parameters })).executionStarted).toBe(true);
		const ignored = await answer({ body: musicComplete() }, { parameters });
		expect(ignored.body).toEqual({
			received: true,
			ignored: 'task id is not in the Task ID Filter',
		});
		expect(ignored.executionStarted).toBe(false);
	});
});

describe('authentication', () => {
	const SECRET = 'b1e7c0b8-5a2f-4e7e-9d0c-token';
	const query = { authentication: 'queryToken', secretToken: SECRET };
	const header = { authentication: 'headerToken', secretToken: SECRET };

	it.each([
		['query, missing', query, {}, 401, 'missing callback token'],
		['query, wrong', query, { query: { token: 'nope' } }, 401, 'invalid callback token'],
		[
			'query, repeated',
			query,
			{ query: { token: [SECRET, SECRET] } },
			401,
			'invalid callback token',
		],
		[
			'query, in a header instead',
			query,
			{ headers: { 'X-Callback-Token': SECRET } },
			401,
			'missing callback token',
		],
		['header, missing', header, {}, 401, 'missing callback token'],
		[
			'header, wrong',
			header,
			{ headers: { 'X-Callback-Token': `${SECRET}x` } },
			401,
			'invalid callback token',
		],
		[
			'header, in the query instead',
			header,
			{ query: { token: SECRET } },
			401,
			'missing callback token',
		],
	])('answers 401 and starts nothing: %s', async (_label, parameters, request, status, error) => {
		const a = await answer({ body: imageSuccess(), ...request }, { parameters });
		expect(a.status).toBe(status);
		expect(a.body).toEqual({ error });
		expect(a.executionStarted).toBe(false);
		expect(a.result).toEqual({ noWebhookResponse: true });
	});

	it('accepts the right token in the query and in the header', async () => {
		expect(
			(await answer({ body: imageSuccess(), query: { token: SECRET } }, { parameters: query }))
				.status,
		).toBe(200);
		const viaHeader = await answer(
			{ body: imageSuccess(), headers: { 'x-callback-token': SECRET } },
			{ parameters: header },
		);
		expect(viaHeader).toMatchObject({ status: 200, executionStarted: true });
	});

	it('uses the configured parameter and header names', async () => {
		const q = { ...query, queryParameterName: 'sig' };
		expect(
			(await answer({ body: imageSuccess(), query: { sig: SECRET } }, { parameters: q })).status,
		).toBe(200);
		expect(
			(await answer({ body: imageSuccess(), query: { token: SECRET } }, { parameters: q })).status,
		).toBe(401);
		const h = { ...header, headerName: 'X-Gateway-Secret' };
		expect(
			(
				await answer(
					{ body: imageSuccess(), headers: { 'X-Gateway-Secret': SECRET } },
					{ parameters: h },
				)
			).status,
		).toBe(200);
	});

	it('checks the token before the body, so strangers learn nothing about it', async () => {
		const a = await answer({ body: { nonsense: true } }, { parameters: query });
		expect(a.status).toBe(401);
	});

	it('rejects every callback while the secret is empty', async () => {
		const a = await answer(
			{ body: imageSuccess(), query: { token: '' } },
			{ parameters: { ...query, secretToken: '' } },
		);
		expect(a.status).toBe(401);
	});

	it('never echoes the secret', async () => {
		const a = await answer(
			{ body: imageSuccess(), query: { token: 'wrong' } },
			{ parameters: query },
		);
		expect(JSON.stringify(a.body)).not.toContain(SECRET);
	});
});

describe('duplicates', () => {
	it('across two processes sharing static data, a key lost to a concurrent save comes back (queue mode)', async () => {
		// Two webhook processes = two copies of the module, each with its own in-process memory.
		const load = (): INodeType => {
			let node: INodeType | undefined;
			jest.isolateModules(() => {
				// eslint-disable-next-line @typescript-eslint/no-require-imports
				node =
					new (require('../../nodes/MediaGatewayTrigger/MediaGatewayTrigger.node').MediaGatewayTrigger)();
			});
			return node as INodeType;
		};
		const [processA, processB] = [load(), load()];
		// The workflow row's static data, as n8n keeps it: read whole per request, written whole after it.
		let row = '{}';
		const begin = (node: INodeType, id: string) => {
			const staticData = JSON.parse(row) as IDataObject;
			const { ctx, res } = webhookContext(
				{ body: { ...videoSuccess(), id } },
				{ staticData, workflowId: 'wf-queue' },
			);
			return {
				run: async () => answerLikeN8n(await node.webhook!.call(ctx), res),
				save: () => {
					row = JSON.stringify(staticData);
				},
			};
		};
		const keys = () =>
			Object.keys((JSON.parse(row).dedupe as { entries: object } | undefined)?.entries ?? {});

		// A and B answer two different callbacks at once: both read the same row, B saves last.
		const a1 = begin(processA, 'task-1');
		const b2 = begin(processB, 'task-2');
		expect((await a1.run()).executionStarted).toBe(true);
		expect((await b2.run()).executionStarted).toBe(true);
		a1.save();
		b2.save();
		expect(keys()).toHaveLength(1); // task-1's key was overwritten: n8n saves static data without a lock

		// A's next callback (any task) writes task-1's key back.
		const a3 = begin(processA, 'task-3');
		expect((await a3.run()).executionStarted).toBe(true);
		a3.save();
		expect(keys()).toHaveLength(3);

		// task-1 retried through the other process is now recognised.
		const retry = begin(processB, 'task-1');
		expect(await retry.run()).toMatchObject({
			status: 200,
			executionStarted: false,
			body: { ignored: 'duplicate' },
		});
	});

	it('answers a repeated callback 200 without a second execution', async () => {
		const staticData: IDataObject = {};
		const first = await answer({ body: videoSuccess() }, { staticData });
		const second = await answer({ body: videoSuccess() }, { staticData });
		expect(first.executionStarted).toBe(true);
		expect(second).toMatchObject({ status: 200, executionStarted: false });
		expect(second.body).toEqual({ received: true, ignored: 'duplicate' });
	});

	it('treats a new progress value of the same task and status as new', async () => {
		const staticData: IDataObject = {};
		const parameters = { finalOnly: false };
		expect(
			(await answer({ body: imageInProgress() }, { staticData, parameters })).executionStarted,
		).toBe(true);
		const further = { ...imageInProgress(), progress: '70%' };
		expect((await answer({ body: further }, { staticData, parameters })).executionStarted).toBe(
			true,
		);
		expect((await answer({ body: further }, { staticData, parameters })).executionStarted).toBe(
			false,
		);
		expect(
			(await answer({ body: imageSuccess() }, { staticData, parameters })).executionStarted,
		).toBe(true);
	});

	it('remembers only accepted callbacks', async () => {
		const staticData: IDataObject = {};
		await answer({ body: videoProcessing() }, { staticData }); // ignored: not final
		await answer({ body: { ...videoSuccess(), id: 5 } }, { staticData }); // 400
		expect(staticData.dedupe).toBeUndefined();
		await answer({ body: videoSuccess() }, { staticData });
		expect(Object.keys((staticData.dedupe as { entries: object }).entries)).toHaveLength(1);
	});

	it('can be switched off', async () => {
		const staticData: IDataObject = {};
		const parameters = { ignoreDuplicates: false };
		expect(
			(await answer({ body: musicComplete() }, { staticData, parameters })).executionStarted,
		).toBe(true);
		expect(
			(await answer({ body: musicComplete() }, { staticData, parameters })).executionStarted,
		).toBe(true);
		expect(staticData.dedupe).toBeUndefined();
	});

	it('honours the memory size option', async () => {
		const staticData: IDataObject = {};
		const parameters = { options: { duplicateMemorySize: 2 } };
		for (const id of ['a', 'b', 'c'])
			await answer({ body: { ...videoSuccess(), id } }, { staticData, parameters });
		expect(Object.keys((staticData.dedupe as { entries: object }).entries)).toHaveLength(2);
		// "a" was evicted, so its retry passes again; "c" is still remembered.
		expect(
			(await answer({ body: { ...videoSuccess(), id: 'a' } }, { staticData, parameters }))
				.executionStarted,
		).toBe(true);
		expect(
			(await answer({ body: { ...videoSuccess(), id: 'c' } }, { staticData, parameters }))
				.executionStarted,
		).toBe(false);
	});

	it('honours the memory window option', async () => {
		const staticData: IDataObject = {};
		const parameters = { options: { duplicateWindowHours: 1 } };
		const now = jest.spyOn(Date, 'now');
		try {
			now.mockReturnValue(1_700_000_000_000);
			expect(
				(await answer({ body: videoSuccess() }, { staticData, parameters })).executionStarted,
			).toBe(true);
			now.mockReturnValue(1_700_000_000_000 + 59 * 60_000);
			expect(
				(await answer({ body: videoSuccess() }, { staticData, parameters })).executionStarted,
			).toBe(false);
			now.mockReturnValue(1_700_000_000_000 + 61 * 60_000);
			expect(
				(await answer({ body: videoSuccess() }, { staticData, parameters })).executionStarted,
			).toBe(true);
		} finally {
			now.mockRestore();
		}
	});
});

describe('bad input', () => {
	it.each([
		['a string body (text/plain)', 'just text', 'body must be a JSON object'],
		['an array body', [imageSuccess()], 'body must be a JSON object'],
		['no body', undefined, 'body must be a JSON object'],
		['an empty object', {}, 'id: the task id is missing'],
		['a numeric id', { ...imageSuccess(), id: 7 }, 'id: must be a string, not number'],
		[
			'an unknown shape',
			{ id: 'x', state: 'done' },
			'unrecognised callback shape: expected an image, video or music task callback',
		],
		[
			'a wrong type',
			{ ...videoSuccess(), created_at: 'yesterday' },
			'created_at: must be a number, not string',
		],
		[
			'a pollution key',
			JSON.parse('{"id":"x","status":"SUCCESS","__proto__":{"admin":true}}'),
			'forbidden key "__proto__"',
		],
	])('answers 400 with a short reason for %s', async (_label, body, error) => {
		const a = await answer({ body });
		expect(a.status).toBe(400);
		expect(a.body).toEqual({ error });
		expect(a.executionStarted).toBe(false);
		expect(a.result).toEqual({ noWebhookResponse: true });
	});

	it.each([
		[
			'a NUL in the id',
			{ ...imageSuccess(), id: 'img\u0000task' },
			'id: must not contain control characters',
		],
		[
			'a line break in the id',
			{ ...videoSuccess(), id: 'vid-1\nX-Injected: 1' },
			'id: must not contain control characters',
		],
		[
			'an escape in the status',
			{ ...imageSuccess(), status: 'SUCCESS\u001b[31m' },
			'status: must not contain control characters',
		],
		[
			'a C1 control in the status',
			{ ...musicComplete(), status: 'complete\u0085' },
			'status: must not contain control characters',
		],
		[
			'a NUL in the image URL',
			{ ...imageSuccess(), imageUrl: 'https://cdn.example.com/a\u0000.png' },
			'imageUrl: must not contain control characters',
		],
		[
			'a 300-character id',
			{ ...videoSuccess(), id: 'v'.repeat(300) },
			'id: is longer than 256 characters',
		],
		[
			'a 100-character status',
			{ ...imageSuccess(), status: 'S'.repeat(100) },
			'status: is longer than 64 characters',
		],
		[
			'a 9 kB video URL',
			{
				...videoSuccess(),
				output: {
					...videoSuccess().output,
					video_url: `https://cdn.example.com/${'a'.repeat(9000)}`,
				},
			},
			'output.video_url: is longer than 8192 characters',
		],
		[
			'a 1 MB image URL',
			{ ...imageSuccess(), imageUrl: `https://cdn.example.com/${'a'.repeat(1 << 20)}` },
			'body has a text value longer than 20000 characters',
		],
		[
			'a 1 MB unknown field',
			{ ...musicComplete(), note: 'n'.repeat(1 << 20) },
			'body has a text value longer than 20000 characters',
		],
		[
			'a 1 MB key',
			{ ...imageSuccess(), ['k'.repeat(1 << 20)]: 1 },
			'body has a key longer than 256 characters',
		],
	])('answers 400 and starts nothing for %s', async (_label, body, error) => {
		const a = await answer({ body });
		expect(a).toMatchObject({ status: 400, body: { error }, executionStarted: false });
		expect(a.result).toEqual({ noWebhookResponse: true });
	});

	it.each([
		[
			'form encoding',
			'application/x-www-form-urlencoded',
			{ id: 'img-task-1', status: 'SUCCESS', imageUrl: 'https://x' },
		],
		['multipart', 'multipart/form-data; boundary=x', { id: 'img-task-1', status: 'SUCCESS' }],
		['plain text', 'text/plain', JSON.stringify(imageSuccess())],
		['XML', 'application/xml', { id: 'img-task-1', status: 'SUCCESS' }],
		['no content type', undefined, imageSuccess()],
		['a repeated header', ['application/json', 'application/json'], imageSuccess()],
	])(
		'answers 415 and starts nothing for %s, even when n8n parsed the body into callback fields',
		async (_l, type, body) => {
			const a = await answer({ body, headers: { 'content-type': type as string | undefined } });
			expect(a).toMatchObject({
				status: 415,
				body: { error: 'unsupported content type: callbacks are sent as application/json' },
				executionStarted: false,
			});
		},
	);

	it.each([
		'application/json',
		'application/json; charset=utf-8',
		'Application/JSON;charset=UTF-8',
		'application/vnd.gateway+json',
	])('accepts the JSON content type %s', async (type) => {
		expect(
			(await answer({ body: imageSuccess(), headers: { 'content-type': type } })).executionStarted,
		).toBe(true);
	});

	it('checks the token before the content type', async () => {
		const a = await answer(
			{ body: imageSuccess(), headers: { 'content-type': 'text/plain' } },
			{ parameters: { authentication: 'queryToken', secretToken: 's3cret-value' } },
		);
		expect(a.status).toBe(401);
	});

	it('answers 400 quickly for very deep and very wide bodies', async () => {
		const deep: unknown = JSON.parse(
			`{"id":"x","status":"SUCCESS","a":${'['.repeat(200_000)}${']'.repeat(200_000)}}`,
		);
		const wide = { ...imageSuccess(), list: new Array(3_000_000).fill(1) };
		// Baseline in the same test (CPU time, so load-robust): answering the largest body the trigger accepts.
		// A hostile body may cost a few of those, not the hundreds a walk of all of it would.
		const largest = { ...imageSuccess(), list: new Array(CALLBACK_LIMITS.maxValues - 50).fill(1) };
		const { ms: baseline, result: accepted } = await cpuMs(() => answer({ body: largest }));
		expect(accepted.status).toBe(200);
		for (const [name, body] of [
			['200 000 levels deep', deep],
			['3 000 000 values wide', wide],
		] as const) {
			const { ms, result } = await cpuMs(() => answer({ body }));
			expect(result.status).toBe(400);
			expectWithin(ms, baseline, 3, name);
		}
	});
});

describe('static data in a real n8n Workflow object', () => {
	const nodeTypes: INodeTypes = {
		getByName: () => trigger as INodeType,
		getByNameAndVersion: () => trigger as INodeType,
		getKnownTypes: () => ({}),
	} as unknown as INodeTypes;

	function workflowWith(staticData: IDataObject, parameters: IDataObject = {}) {
		const node: INode = { ...NODE, parameters: parameters as INodeParameters };
		const workflow = new Workflow({
			id: 'wf1',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes,
			staticData,
		});
		return { workflow, node: workflow.getNode(NODE.name)! };
	}

	it('marks static data changed after an accepted callback (so n8n saves it) and not after rejections', async () => {
		const { workflow, node } = workflowWith({});
		const run = async (request: FakeRequest) => {
			const { ctx, res } = webhookContext(request, {
				parameters: node.parameters,
				staticData: workflow.getStaticData('node', node),
			});
			return answerLikeN8n(await trigger.webhook.call(ctx), res);
		};
		expect((await run({ body: { id: 7 } })).status).toBe(400);
		expect((await run({ body: videoProcessing() })).executionStarted).toBe(false);
		expect(workflow.staticData.__dataChanged).toBe(false);
		expect((await run({ body: videoSuccess() })).executionStarted).toBe(true);
		expect(workflow.staticData.__dataChanged).toBe(true);

		// Next request: n8n loads the saved JSON into a new Workflow.
		const saved = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
		const next = workflowWith(saved);
		const { ctx, res } = webhookContext(
			{ body: videoSuccess() },
			{
				parameters: next.node.parameters,
				staticData: next.workflow.getStaticData('node', next.node),
			},
		);
		const a = answerLikeN8n(await trigger.webhook.call(ctx), res);
		expect(a.body).toEqual({ received: true, ignored: 'duplicate' });
		expect(next.workflow.staticData.__dataChanged).toBe(false);
	});

	it('is saved although starting the execution clears the changed flag (n8n 2.41, establishContextForPersistence)', async () => {
		// What n8n does per request: the plain object from the database, wrapped by the webhook's Workflow…
		const fromDatabase: IDataObject = {};
		const { workflow, node } = workflowWith(fromDatabase);
		const { ctx, res } = webhookContext(
			{ body: videoSuccess() },
			{ parameters: node.parameters, staticData: workflow.getStaticData('node', node) },
		);
		const result = await trigger.webhook.call(ctx);
		// …then WorkflowRunner.run() builds another Workflow around the same object, which resets the flag…
		new Workflow({
			id: 'wf1',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes,
			staticData: fromDatabase,
		});
		expect(workflow.staticData.__dataChanged).toBe(false);
		// …and only then reads the answer; saveStaticData runs right after, and sees the change.
		expect(answerLikeN8n(result, res)).toMatchObject({ status: 200, executionStarted: true });
		expect(workflow.staticData.__dataChanged).toBe(true);
		const saved = JSON.parse(JSON.stringify(workflow.staticData)) as Record<
			string,
			{ dedupe: { entries: object } }
		>;
		expect(Object.keys(saved[`node:${NODE.name}`].dedupe.entries)).toHaveLength(1);
	});

	it('receives the declared defaults from n8n', () => {
		const { node } = workflowWith({});
		expect(node.parameters).toMatchObject({
			kinds: ['image', 'video', 'music'],
			finalOnly: true,
			ignoreDuplicates: true,
		});
	});
});

describe('webhook lifecycle (checkExists / create / delete)', () => {
	const methods = trigger.webhookMethods.default;

	it('records the registration on create and finds it afterwards', async () => {
		const { ctx, staticData } = hookContext({});
		expect(await methods.checkExists.call(ctx)).toBe(false);
		expect(await methods.create.call(ctx)).toBe(true);
		expect(staticData).toMatchObject({
			registeredUrl: `http://127.0.0.1:5678/webhook/${NODE.webhookId}/webhook`,
			authentication: 'none',
			dedupe: { v: 1, entries: {} },
		});
		expect(new Date(staticData.registeredAt as string).toISOString()).toBe(staticData.registeredAt);
		expect(await methods.checkExists.call(ctx)).toBe(true);
	});

	it('reports a registration for another URL as missing (e.g. the Test URL or a changed base URL)', async () => {
		const { ctx } = hookContext({
			staticData: { registeredUrl: 'http://old.example/webhook/x/webhook' },
		});
		expect(await methods.checkExists.call(ctx)).toBe(false);
	});

	it('keeps the duplicate memory when the registration exists (n8n restart)', async () => {
		const staticData: IDataObject = {};
		await methods.create.call(hookContext({ staticData }).ctx);
		await answer({ body: videoSuccess() }, { staticData });
		expect(await methods.checkExists.call(hookContext({ staticData }).ctx)).toBe(true);
		expect((await answer({ body: videoSuccess() }, { staticData })).executionStarted).toBe(false);
	});

	it('clears the registration and the duplicate memory on delete', async () => {
		const staticData: IDataObject = { other: 1 };
		await methods.create.call(hookContext({ staticData }).ctx);
		await answer({ body: videoSuccess() }, { staticData });
		expect(await methods.delete.call(hookContext({ staticData }).ctx)).toBe(true);
		expect(staticData).toEqual({ other: 1 });
		expect(await methods.checkExists.call(hookContext({ staticData }).ctx)).toBe(false);
		expect((await answer({ body: videoSuccess() }, { staticData })).executionStarted).toBe(true);
	});

	it('records the secret mode and refuses to activate with an empty secret', async () => {
		const withSecret = hookContext({
			parameters: { authentication: 'headerToken', secretToken: 'abc123' },
		});
		await methods.create.call(withSecret.ctx);
		expect(withSecret.staticData.authentication).toBe('headerToken');
		expect(JSON.stringify(withSecret.staticData)).not.toContain('abc123');

		const empty = hookContext({ parameters: { authentication: 'queryToken', secretToken: '' } });
		await expect(methods.create.call(empty.ctx)).rejects.toThrow('The Secret Token is empty');
		expect(empty.staticData).toEqual({});
	});

	it('fails loudly when n8n provides no URL', async () => {
		const { ctx } = hookContext({ url: undefined });
		await expect(methods.create.call(ctx)).rejects.toThrow(/no webhook URL/);
	});

	it("lets errors of n8n's helpers propagate instead of swallowing them", async () => {
		const { ctx } = hookContext({});
		(ctx as unknown as { getWorkflowStaticData: () => never }).getWorkflowStaticData = () => {
			throw new Error('database unavailable');
		};
		await expect(methods.checkExists.call(ctx)).rejects.toThrow('database unavailable');
		await expect(methods.create.call(ctx)).rejects.toThrow('database unavailable');
		await expect(methods.delete.call(ctx)).rejects.toThrow('database unavailable');
	});
});

describe('ObservableObject sanity (the mechanism the tests above rely on)', () => {
	it('flags nested changes made through a child proxy', () => {
		const root = ObservableObject.create({ child: { a: 1 } } as IDataObject);
		(root.child as IDataObject).a = 2;
		expect(root.__dataChanged).toBe(true);
	});
});
