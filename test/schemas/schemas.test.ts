/**
 * The output schemas the package ships (nodes/<Node>/__schema__/v<x.y.z>/<operation>.json, the
 * layout n8n serves at GET /schemas/<package>.<node>/<x.y.z>/<operation>.json) are exactly what the
 * operations output: each is derived from items the operations really produced (samples.ts) and
 * compared with the committed file. A node that changes its output fails here until the schema is
 * regenerated:  UPDATE_SCHEMAS=1 npx jest test/schemas   (or: npm run schemas)
 * The trigger has no operation parameter: its schema is output.json, the name n8n-core's schema
 * lookup falls back to for such nodes.
 */
import {
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { IDataObject, INodeType } from 'n8n-workflow';

import { MediaGatewayTrigger } from '../../nodes/MediaGatewayTrigger/MediaGatewayTrigger.node';
import { startSim, type Simulator } from '../video/helpers';
import { fieldPaths, schemaOfItems, type JsonSchema } from './derive';
import { ACTION_SAMPLES, collectSamples, operationValues, triggerSamples } from './samples';

const NODES_DIR = path.resolve(__dirname, '../../nodes');
const UPDATE = process.env.UPDATE_SCHEMAS === '1';

/** n8n pads the node version to x.y.z for the folder name (n8n-core's output-schema-resolver). */
function versionDir(nodeType: INodeType): string {
	const versions = [nodeType.description.version].flat();
	const latest = Math.max(...versions);
	return `v${String(latest).split('.').concat(['0', '0']).slice(0, 3).join('.')}`;
}

function schemaFile(nodeDir: string, nodeType: INodeType, operation: string | undefined): string {
	return path.join(
		NODES_DIR,
		nodeDir,
		'__schema__',
		versionDir(nodeType),
		`${operation ?? 'output'}.json`,
	);
}

function serialise(schema: JsonSchema): string {
	return `${JSON.stringify(schema, null, '\t')}\n`;
}

/** Compares with the committed file, or writes it under UPDATE_SCHEMAS=1. */
function checkSchemaFile(file: string, derived: JsonSchema) {
	const relative = path.relative(path.resolve(NODES_DIR, '..'), file);
	if (UPDATE) {
		mkdirSync(path.dirname(file), { recursive: true });
		writeFileSync(file, serialise(derived));
		return;
	}
	if (!existsSync(file))
		throw new Error(`${relative} is missing: run UPDATE_SCHEMAS=1 npx jest test/schemas`);
	const shipped = JSON.parse(readFileSync(file, 'utf8')) as JsonSchema;
	try {
		expect(shipped).toEqual(derived);
	} catch (error) {
		throw new Error(
			`${relative} no longer matches what the operation outputs; regenerate it with UPDATE_SCHEMAS=1 npx jest test/schemas\n${(error as Error).message}`,
		);
	}
	// Byte-for-byte too, so regeneration never produces a diff of formatting alone.
	expect(readFileSync(file, 'utf8')).toBe(serialise(derived));
}

function listJsonFiles(dir: string): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir).flatMap((name) => {
		const full = path.join(dir, name);
		return statSync(full).isDirectory()
			? listJsonFiles(full)
			: name.endsWith('.json')
				? [full]
				: [];
	});
}

let sim: Simulator;
const written = new Set<string>();

beforeAll(async () => {
	sim = await startSim({ videoCompleteAfterMs: 100 });
});

afterAll(async () => {
	await sim.close();
});

describe('shipped output schemas match what the operations output', () => {
	test.each(ACTION_SAMPLES.map((s) => [`${s.nodeDir} → ${s.operation}`, s] as const))(
		'%s',
		async (_name, samples) => {
			const items = await collectSamples(sim, samples);
			const file = schemaFile(samples.nodeDir, samples.nodeType, samples.operation);
			written.add(file);
			checkSchemaFile(file, schemaOfItems(items, `${samples.nodeDir} ${samples.operation}`));
		},
	);

	test('MediaGatewayTrigger → output', async () => {
		const trigger = new MediaGatewayTrigger();
		const file = schemaFile('MediaGatewayTrigger', trigger, undefined);
		written.add(file);
		checkSchemaFile(file, schemaOfItems(await triggerSamples(sim), 'MediaGatewayTrigger output'));
	});

	test('every operation of every node has a schema, and no file is left over', () => {
		const nodeDirs = readdirSync(NODES_DIR).filter((d) => d.startsWith('MediaGateway'));
		for (const nodeDir of nodeDirs.filter((d) => d !== 'MediaGatewayTrigger')) {
			const samples = ACTION_SAMPLES.filter((s) => s.nodeDir === nodeDir);
			expect(samples.length).toBeGreaterThan(0);
			expect(samples.map((s) => s.operation).sort()).toEqual(
				operationValues(samples[0].nodeType).sort(),
			);
		}
		const shipped = nodeDirs.flatMap((d) => listJsonFiles(path.join(NODES_DIR, d, '__schema__')));
		const stale = shipped.filter((file) => !written.has(file));
		if (UPDATE) for (const file of stale) rmSync(file);
		else expect(stale.map((f) => path.relative(NODES_DIR, f))).toEqual([]);
	});
});

describe('the schemas list the fields users map', () => {
	const read = (nodeDir: string, file: string) =>
		JSON.parse(
			readFileSync(path.join(NODES_DIR, nodeDir, '__schema__', 'v1.0.0', file), 'utf8'),
		) as JsonSchema;

	test('image operations: url, seed, width, height, isImageSafe', () => {
		for (const op of ['generate', 'edit', 'remix', 'reframe', 'replaceBackground']) {
			expect(fieldPaths(read('MediaGatewayImage', `${op}.json`))).toEqual(
				expect.arrayContaining([
					'url',
					'prompt',
					'seed',
					'width',
					'height',
					'isImageSafe',
					'createdAt',
				]),
			);
		}
	});

	test('video task operations: taskId, state, status and the finished video', () => {
		for (const [nodeDir, op] of [
			['MediaGatewayVideo', 'create'],
			['MediaGatewayVideo', 'createUnified'],
			['MediaGatewayVideo', 'get'],
			['MediaGatewayVideo', 'wait'],
			['MediaGatewayStoryboard', 'create'],
		]) {
			expect(fieldPaths(read(nodeDir, `${op}.json`))).toEqual(
				expect.arrayContaining([
					'taskId',
					'state',
					'status',
					'video',
					'video.url',
					'video.duration',
					'video.width',
					'video.height',
				]),
			);
		}
	});

	test('trigger: kind, taskId, state, resultUrl, failReason, payload', () => {
		const paths = fieldPaths(read('MediaGatewayTrigger', 'output.json'));
		expect(paths).toEqual(
			expect.arrayContaining([
				'kind',
				'taskId',
				'status',
				'state',
				'progress',
				'resultUrl',
				'coverUrl',
				'failReason',
				'payload',
			]),
		);
	});

	test('the editor accepts each file: an object schema with properties', () => {
		for (const file of [...written]) {
			const schema = JSON.parse(readFileSync(file, 'utf8')) as IDataObject;
			// What n8n's editor checks before it shows a preview (useRunWorkflow: type + non-empty properties).
			expect(schema.type).toBe('object');
			expect(Object.keys(schema.properties as IDataObject).length).toBeGreaterThan(3);
		}
	});
});
