/**
 * Media Gateway Character through n8n's real execution engine against the gateway simulator:
 * the request body (reference images from URLs and from binary fields), the gateway's JSON
 * passed through unchanged, and validation before any request.
 */
import type { INodeParameters } from 'n8n-workflow';

import { MediaGatewayCharacter } from '../../nodes/MediaGatewayCharacter/MediaGatewayCharacter.node';
import {
	API_KEY,
	PNG_BASE64,
	everythingVisible,
	posts,
	pngFor,
	runGateway,
	startSim,
	type RunOptions,
	type Simulator,
} from './helpers';

let sim: Simulator;

beforeAll(async () => {
	sim = await startSim();
});

afterAll(async () => {
	await sim.close();
});

beforeEach(() => {
	sim.reset();
});

const character = (parameters: INodeParameters, options?: RunOptions) =>
	runGateway(sim, new MediaGatewayCharacter(), parameters, options);

const PATH = '/vidmodel/v1/characters';
const JPEG_BASE64 = Buffer.from('not really a jpeg, but typed as one').toString('base64');
const SECOND_PNG_BASE64 = pngFor('second').toString('base64');

function params(overrides: INodeParameters = {}): INodeParameters {
	return {
		operation: 'create',
		name: 'Captain Mira',
		description: 'A tall woman in her forties, short silver hair, navy pea coat',
		referenceImages: {},
		...overrides,
	};
}

describe('Create character', () => {
	test('sends name and description; no reference images means no reference_images field', async () => {
		const result = await character(params());

		expect(result.error).toBeUndefined();
		const sent = posts(sim);
		expect(sent).toHaveLength(1);
		expect(sent[0].path).toBe(PATH);
		expect(sent[0].headers['content-type']).toMatch(/^application\/json/);
		expect(sent[0].body).toEqual({
			name: 'Captain Mira',
			description: 'A tall woman in her forties, short silver hair, navy pea coat',
		});
	});

	test('reference images from URLs and binary fields, in the order given; binary as data URIs', async () => {
		const result = await character(
			params({
				referenceImages: {
					image: [
						{ source: 'url', url: 'https://cdn.example.com/mira-front.png' },
						{ source: 'binary', binaryField: 'portrait' },
						{ source: 'url', url: '={{ $json.sideView }}' },
						{ source: 'binary', binaryField: 'closeup' },
					],
				},
			}),
			{
				input: [
					{
						json: { sideView: 'https://cdn.example.com/mira-side.png' },
						binary: {
							portrait: { data: PNG_BASE64, mimeType: 'image/png', fileName: 'portrait.png' },
							closeup: { data: JPEG_BASE64, mimeType: 'image/jpeg', fileName: 'closeup.jpg' },
						},
					},
				],
			},
		);

		expect(result.error).toBeUndefined();
		expect(posts(sim)[0].body.reference_images).toEqual([
			'https://cdn.example.com/mira-front.png',
			`data:image/png;base64,${PNG_BASE64}`,
			'https://cdn.example.com/mira-side.png',
			`data:image/jpeg;base64,${JPEG_BASE64}`,
		]);
	});

	test("the gateway's JSON is output as it came (simulator answer)", async () => {
		const result = await character(
			params({
				referenceImages: { image: [{ source: 'url', url: 'https://cdn.example.com/a.png' }] },
			}),
		);

		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const json = result.items[0].json;
		expect(Object.keys(json).sort()).toEqual([
			'created_at',
			'description',
			'id',
			'name',
			'reference_images',
		]);
		expect(json).toMatchObject({
			name: 'Captain Mira',
			description: 'A tall woman in her forties, short silver hair, navy pea coat',
			reference_images: ['https://cdn.example.com/a.png'],
		});
		expect(String(json.id)).toMatch(/^char_/);
		expect(typeof json.created_at).toBe('number');
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	test('an unknown response shape is passed through unchanged, nothing added', async () => {
		const answer = {
			character_id: 'c-42',
			state: 'ready',
			meta: { tags: ['pirate', 'captain'], score: 0.93, parent: null },
			images: [{ url: 'https://cdn.example.com/c-42/0.png', width: 512 }],
		};
		sim.inject({ path: PATH, method: 'POST', status: 200, body: answer });
		const result = await character(params());

		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toEqual(answer);
	});

	test('several items: one character each, output in input order with pairedItem', async () => {
		const names = ['Mira', 'Odo', 'Tamsin'];
		const result = await character(params({ name: '={{ $json.name }}' }), {
			input: names.map((name) => ({ json: { name } })),
		});

		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.json.name)).toEqual(names);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(
			posts(sim)
				.map((r) => r.body.name)
				.sort(),
		).toEqual([...names].sort());
	});
});

describe('validation before any request', () => {
	test('missing name (expression resolving to nothing): error naming the field, no request', async () => {
		const result = await character(params({ name: '={{ $json.name }}' }), {
			input: [{ json: {} }],
		});

		expect(result.error).toBeDefined();
		expect(result.error!.name).toBe('NodeOperationError');
		expect(result.error!.message).toMatch(/\bName\b/);
		expect(result.error!.itemIndex).toBe(0);
		expect(sim.requests).toHaveLength(0);
	});

	test('a literally empty Name is refused by n8n itself, no request', async () => {
		await expect(character(params({ name: '' }))).rejects.toThrow(/Parameter "Name" is required/);
		expect(sim.requests).toHaveLength(0);
	});

	test('blank description: error naming the field, no request', async () => {
		const result = await character(params({ description: '   ' }));

		expect(result.error).toBeDefined();
		expect(result.error!.message).toMatch(/Description/);
		expect(sim.requests).toHaveLength(0);
	});

	test('a binary reference image whose field is missing names the entry, no request', async () => {
		const result = await character(
			params({
				referenceImages: {
					image: [
						{ source: 'url', url: 'https://cdn.example.com/a.png' },
						{ source: 'binary', binaryField: 'nope' },
					],
				},
			}),
			{
				input: [
					{ json: {}, binary: { portrait: { data: SECOND_PNG_BASE64, mimeType: 'image/png' } } },
				],
			},
		);

		expect(result.error).toBeDefined();
		expect(result.error!.message).toContain('"nope"');
		expect(result.error!.description).toContain('portrait');
		expect(sim.requests).toHaveLength(0);
	});

	test('an empty reference image URL names the entry, no request', async () => {
		const result = await character(
			params({
				referenceImages: {
					image: [
						{ source: 'url', url: 'https://cdn.example.com/a.png' },
						{ source: 'url', url: '' },
					],
				},
			}),
		);

		expect(result.error).toBeDefined();
		expect(result.error!.message).toMatch(/Reference Image #2/);
		expect(sim.requests).toHaveLength(0);
	});
});

describe('HTTP errors', () => {
	test('401 does not leak the key', async () => {
		const result = await character(params(), { apiKey: `${API_KEY}-revoked` });

		expect(result.error).toBeDefined();
		expect(result.error!.httpCode).toBe('401');
		expect(everythingVisible(result)).not.toContain(API_KEY);
	});

	test("500 on the POST is not retried and carries the gateway's message", async () => {
		sim.inject({
			path: PATH,
			method: 'POST',
			status: 500,
			body: { error: { message: 'Character store is read-only' } },
			times: 3,
		});
		const result = await character(params());

		expect(result.error).toBeDefined();
		expect(result.error!.httpCode).toBe('500');
		expect(`${result.error!.message} ${result.error!.description}`).toContain(
			'Character store is read-only',
		);
		expect(posts(sim)).toHaveLength(1);
	});
});
