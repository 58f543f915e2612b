/**
 * Shared setup of the video, storyboard and character integration tests: a typed handle on the
 * in-repo gateway simulator (plain CommonJS, so it is typed here), credentials pointing at it, a
 * runNode() wrapper, and small measurements over the simulator's request log.
 */
import type { ICredentialDataDecryptedObject, INodeParameters, INodeType } from 'n8n-workflow';

import { MediaGatewayApi } from '../../credentials/MediaGatewayApi.credentials';
import { runNode } from '../../dev/harness/runNode';
import type { HarnessInputItem, RunNodeOptions, RunNodeResult } from '../../dev/harness/runNode';

/** Long and distinctive, so a leak into an error, a log line or an output item is easy to spot. */
export const API_KEY = 'mgw-video-test-key-9f83b2c71d';

export interface SimRequest {
	method: string;
	path: string;
	query: Record<string, string>;
	headers: Record<string, unknown>;
	/** The parsed JSON body exactly as the node sent it (any shape, hence `any`). */
	body: any;
	/** Epoch ms when the request (with its body) had arrived. */
	at: number;
}

export interface SimTask {
	id: string;
	endpoint: string;
	model: string;
	prompt?: string;
	status: string;
	createdAt: number;
	completeAt: number;
	updatedAt: number;
	notifyHook?: string;
	/** Set once the task has completed. */
	video?: { url: string; duration: number; width: number; height: number };
}

export interface SimFault {
	path?: string | RegExp;
	method?: string;
	status?: number;
	times?: number;
	retryAfter?: string | number;
	body?: unknown;
	delayMs?: number;
	closeConnection?: boolean;
}

export interface Simulator {
	url: string;
	requests: SimRequest[];
	tasks: Map<string, SimTask>;
	callbackLog: unknown[];
	inject(fault: SimFault): void;
	setLatency(ms: number): void;
	reset(): void;
	close(): Promise<void>;
}

export interface SimulatorOptions {
	apiKey?: string;
	latencyMs?: number;
	videoCompleteAfterMs?: number;
	proCompleteAfterMs?: number;
	callbackTimeScale?: number;
}

interface SimulatorModule {
	startSimulator(options: SimulatorOptions & { port?: number }): Promise<Simulator>;
	mp4Bytes(total?: number): Buffer;
	pngFor(name: string): Buffer;
}

// The simulator is plain JS without type declarations; the interface above is its documented API.
const simulatorModule = require('../../dev/simulator') as SimulatorModule;

export const mp4Bytes = simulatorModule.mp4Bytes;
export const pngFor = simulatorModule.pngFor;

export async function startSim(options: SimulatorOptions = {}): Promise<Simulator> {
	return await simulatorModule.startSimulator({
		apiKey: API_KEY,
		port: 0,
		// Callbacks to test URLs must not linger for the gateway's 10/30/60 s retry schedule.
		callbackTimeScale: 0.001,
		...options,
	});
}

export function credentialsFor(
	sim: Simulator,
	apiKey = API_KEY,
): Record<string, ICredentialDataDecryptedObject> {
	return { mediaGatewayApi: { apiKey, baseUrl: sim.url } };
}

export interface RunOptions extends Partial<
	Omit<RunNodeOptions, 'nodeType' | 'parameters' | 'input'>
> {
	input?: HarnessInputItem[];
	apiKey?: string;
}

/** Runs one gateway node against the simulator and reports the wall time of the run. */
export async function runGateway(
	sim: Simulator,
	nodeType: INodeType,
	parameters: INodeParameters,
	options: RunOptions = {},
): Promise<RunNodeResult & { elapsedMs: number }> {
	const { apiKey, ...rest } = options;
	const started = Date.now();
	const result = await runNode({
		nodeType,
		credentialTypes: [new MediaGatewayApi()],
		credentials: credentialsFor(sim, apiKey ?? API_KEY),
		parameters,
		...rest,
	});
	return Object.assign(result, { elapsedMs: Date.now() - started });
}

export function requestsTo(sim: Simulator, method: string, path?: string | RegExp): SimRequest[] {
	return sim.requests.filter(
		(r) =>
			r.method === method &&
			(path === undefined || (typeof path === 'string' ? r.path === path : path.test(r.path))),
	);
}

export const posts = (sim: Simulator, path?: string | RegExp) => requestsTo(sim, 'POST', path);
export const taskGets = (sim: Simulator, taskId?: string) =>
	requestsTo(sim, 'GET', taskId === undefined ? /^\/v1\/videos\/[^/]+$/ : `/v1/videos/${taskId}`);

/**
 * The largest number of requests that were in flight at once. With the simulator's latency L,
 * a request is in flight from its arrival `at` until it is answered about L ms later; `windowMs`
 * (a bit under L) keeps timer jitter from counting back-to-back requests as overlapping.
 */
export function maxInFlight(requests: SimRequest[], windowMs: number): number {
	const events: Array<[number, number]> = [];
	for (const r of requests) {
		events.push([r.at, 1], [r.at + windowMs, -1]);
	}
	// At equal times the end comes first: touching intervals do not overlap.
	events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
	let current = 0;
	let max = 0;
	for (const [, delta] of events) {
		current += delta;
		max = Math.max(max, current);
	}
	return max;
}

/** Everything a run could have leaked the key into. */
export function everythingVisible(result: RunNodeResult): string {
	return JSON.stringify({
		error: result.error?.raw,
		nodeError: result.nodeError?.raw,
		message: result.error?.message,
		description: result.error?.description,
		items: result.items,
		logs: result.logs,
	});
}

export const errorText = (result: RunNodeResult) =>
	`${result.error?.message ?? ''} ${result.error?.description ?? ''}`;

/**
 * Waits for something the test can observe (a task's state in the simulator, an entry in its request log),
 * looking every few milliseconds. The deadline is generous because a busy machine is slow, not wrong;
 * missing it fails naming what was awaited.
 */
export async function waitUntil(
	check: () => boolean,
	what: string,
	timeoutMs = 60_000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!check()) {
		if (Date.now() > deadline)
			throw new Error(`waited ${timeoutMs} ms for ${what}; it did not happen`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

/** A tiny real PNG (2x2), as base64, for reference-image inputs. */
export const PNG_BASE64 = pngFor('reference').toString('base64');
