/**
 * Test-only node and credential used by runNode.test.ts to prove the harness wires n8n's real
 * helpers: authenticated HTTP, binary storage, errors with itemIndex, continueOnFail, expressions
 * and the execution cancel signal.
 */
import { EventEmitter } from 'node:events';

import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import type {
	IAuthenticateGeneric,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	JsonObject,
} from 'n8n-workflow';

/**
 * The moments of the long-running operations, so tests act on them instead of after a guessed delay:
 * 'polling' (the poll loop has checked the cancel signal and slept once), 'ignoring' (ignoreCancel is running;
 * its argument ends the operation) and 'ignoreCancelDone' (ignoreCancel is returning its items).
 */
export const fixtureEvents = new EventEmitter();

export class HarnessFixtureApi implements ICredentialType {
	name = 'harnessFixtureApi';

	displayName = 'Harness Fixture API';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'http://127.0.0.1:9',
		},
	];

	// Declarative auth: the harness must apply it like n8n's CredentialsHelper does.
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: { Authorization: '=Bearer {{$credentials.apiKey}}' },
			qs: { client: 'harness' },
		},
	};
}

export class HarnessFixture implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Harness Fixture',
		name: 'harnessFixture',
		group: ['transform'],
		version: [1, 2],
		description: 'Exercises n8n helpers for the runNode() self-test',
		defaults: { name: 'Harness Fixture' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'harnessFixtureApi', required: true }],
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Binary', value: 'binary' },
					{ name: 'Echo', value: 'echo' },
					{ name: 'Fail', value: 'fail' },
					{ name: 'Ignore Cancel', value: 'ignoreCancel' },
					{ name: 'Poll Until Cancelled', value: 'poll' },
					{ name: 'Request', value: 'request' },
					{ name: 'Throw Raw', value: 'throwRaw' },
				],
				default: 'echo',
			},
			{
				displayName: 'Text',
				name: 'text',
				type: 'string',
				default: '',
				displayOptions: { show: { operation: ['echo'] } },
			},
			{
				displayName: 'Path',
				name: 'path',
				type: 'string',
				default: '/echo',
				displayOptions: { show: { operation: ['request'] } },
			},
			{
				displayName: 'Fail On Item',
				name: 'failOn',
				type: 'number',
				default: 0,
				displayOptions: { show: { operation: ['fail'] } },
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const operation = this.getNodeParameter('operation', 0) as string;
		const out: INodeExecutionData[] = [];

		if (operation === 'poll') {
			// Honours the cancel signal the way long-running node code should.
			const signal = this.getExecutionCancelSignal();
			while (!signal?.aborted) {
				await sleep(20);
				fixtureEvents.emit('polling');
			}
			throw new NodeOperationError(this.getNode(), 'Stopped: execution was cancelled');
		}
		if (operation === 'ignoreCancel') {
			// Deliberately ignores the cancel signal, so the harness must report it did not stop. It runs
			// until the test lets it finish (not for a fixed time the harness's grace might outlast on a busy machine).
			await new Promise<void>((finish) => fixtureEvents.emit('ignoring', finish));
			fixtureEvents.emit('ignoreCancelDone');
			return [items];
		}
		if (operation === 'throwRaw') {
			// A plain Error escaping execute(): n8n's engine, not the node, has to wrap it.
			throw new Error('raw failure from fixture');
		}

		for (let i = 0; i < items.length; i++) {
			try {
				if (operation === 'echo') {
					const text = this.getNodeParameter('text', i) as string;
					out.push({
						json: { text, index: i, version: this.getNode().typeVersion },
						pairedItem: { item: i },
					});
				} else if (operation === 'request') {
					const credentials = await this.getCredentials('harnessFixtureApi');
					const urlPath = this.getNodeParameter('path', i) as string;
					const response = (await this.helpers.httpRequestWithAuthentication.call(
						this,
						'harnessFixtureApi',
						{ method: 'GET', url: `${credentials.baseUrl as string}${urlPath}`, json: true },
					)) as IDataObject;
					out.push({ json: response, pairedItem: { item: i } });
				} else if (operation === 'binary') {
					this.helpers.assertBinaryData(i, 'data');
					const input = await this.helpers.getBinaryDataBuffer(i, 'data');
					const upper = Buffer.from(input.toString('utf8').toUpperCase(), 'utf8');
					const binary = await this.helpers.prepareBinaryData(upper, 'upper.txt', 'text/plain');
					out.push({
						json: { inputLength: input.length },
						binary: { out: binary },
						pairedItem: { item: i },
					});
				} else if (operation === 'fail') {
					const failOn = this.getNodeParameter('failOn', i) as number;
					if (i === failOn) {
						throw new NodeOperationError(this.getNode(), `Item ${i} failed on purpose`, {
							itemIndex: i,
							description: 'fixture failure description',
						});
					}
					out.push({ json: { ok: i }, pairedItem: { item: i } });
				}
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
					continue;
				}
				if (error instanceof NodeOperationError || error instanceof NodeApiError) throw error;
				throw new NodeApiError(this.getNode(), error as JsonObject, { itemIndex: i });
			}
		}
		return [out];
	}
}
