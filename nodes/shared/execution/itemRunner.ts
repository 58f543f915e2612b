/**
 * The item runner every action node shares: one place that reads the operation, runs items with a
 * bounded concurrency, keeps output order equal to input order, links every output item to its
 * input item, and decides what a failure does (error item under "Continue On Fail", else stop).
 */
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { TransportOptions } from '../transport/request';
import type { RetryPolicy } from '../transport/retry';
import { asNodeError, errorItemJson } from './errors';

/** What a node is constructed with: nothing in n8n; tests pass e.g. a faster retry policy. */
export interface NodeSettings {
	retryPolicy?: RetryPolicy;
}

/** Advice after a 429: this option is the user's lever. */
export const CONCURRENCY_HINT =
	'Lower the Concurrency option, add a Wait node between batches, or try again later.';

/** What every request of an item run passes to the transport. */
export function transportOptions(settings: NodeSettings): TransportOptions {
	return { retry: settings.retryPolicy, hints: { rateLimited: CONCURRENCY_HINT } };
}

/**
 * What an operation gets besides its item index: a signal that fires when the execution is
 * cancelled or another item already failed, and `idle()`, which hands the item's concurrency slot
 * to other items while it only waits (e.g. between polls of a rendering video). Concurrency
 * therefore bounds the items talking to the gateway, not the tasks rendering there.
 */
export interface ItemRun {
	signal: AbortSignal;
	idle<T>(wait: () => Promise<T>): Promise<T>;
	/**
	 * Records a task this item created on the gateway (paid work that keeps running whatever
	 * happens here). Whatever fails afterwards, the node's error, or under Continue On Fail the
	 * item's error output, names it, so no created task is lost from view.
	 */
	recordTask(taskId: string): void;
	/** Passed to every gateway request of the item: the node's retry policy and the error hints of this runner. */
	transport: TransportOptions;
}

/** One operation as a node registers it: its panel parameters and its execute. */
export interface OperationModule {
	description: INodeProperties[];
	execute: OperationExecutor;
}

export type OperationExecutor = (
	this: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
) => Promise<INodeExecutionData[]>;

export const DEFAULT_CONCURRENCY = 5;
export const MAX_CONCURRENCY = 50;

/** The "Concurrency" option, included in every operation's Options collection. */
export const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
	default: DEFAULT_CONCURRENCY,
	description:
		'How many input items talk to the gateway at the same time; 1 sends them one after another. Waiting for a task to finish does not take a place, so many videos can render at once. Lower it if the gateway rate-limits you.',
};

export async function runItems(
	this: IExecuteFunctions,
	operations: Record<string, OperationExecutor>,
	settings: NodeSettings = {},
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	if (items.length === 0) return [[]];

	const operation = this.getNodeParameter('operation', 0) as string;
	const executor = operations[operation];
	if (!executor) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" is not supported`, {
			description: `Choose one of: ${Object.keys(operations).join(', ')}.`,
		});
	}
	const concurrency = readConcurrency(this);
	const continueOnFail = this.continueOnFail();
	const executionSignal = this.getExecutionCancelSignal();

	const results: INodeExecutionData[][] = new Array(items.length);
	let firstFailure: { index: number; error: NodeApiError | NodeOperationError } | undefined;
	// Stops waiting items early when the execution is cancelled or, without Continue On Fail,
	// when one item failed: the node is going to fail anyway.
	const stop = new AbortController();
	const signal = AbortSignal.any([stop.signal, ...(executionSignal ? [executionSignal] : [])]);
	const slots = new Semaphore(concurrency);
	/** Tasks created so far, by item: what a failure must not hide. */
	const createdTasks = new Map<number, string[]>();
	const transport = transportOptions(settings);
	const runFor = (itemIndex: number): ItemRun => ({
		signal,
		async idle(wait) {
			slots.release();
			try {
				return await wait();
			} finally {
				await slots.acquire();
			}
		},
		recordTask(taskId) {
			createdTasks.set(itemIndex, [...(createdTasks.get(itemIndex) ?? []), taskId]);
		},
		transport,
	});

	const runOne = async (itemIndex: number): Promise<void> => {
		try {
			const produced = await executor.call(this, itemIndex, runFor(itemIndex));
			results[itemIndex] = produced.map((item) => ({ ...item, pairedItem: { item: itemIndex } }));
		} catch (caught) {
			const error = asNodeError(this.getNode(), caught, itemIndex);
			if (continueOnFail) {
				results[itemIndex] = [errorItem(error, itemIndex, createdTasks.get(itemIndex) ?? [])];
			} else if (!firstFailure) {
				// The first failure in time wins: later ones may only be the stop it triggered.
				firstFailure = { index: itemIndex, error };
				stop.abort();
			}
		} finally {
			slots.release();
		}
	};

	const running: Array<Promise<void>> = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		await slots.acquire();
		if (firstFailure || signal.aborted) {
			slots.release();
			break;
		}
		running.push(runOne(itemIndex));
	}
	await Promise.all(running);

	if (firstFailure) throw withCreatedTasks(firstFailure.error, createdTasks);
	if (executionSignal?.aborted) {
		throw new NodeOperationError(this.getNode(), 'The execution was cancelled');
	}
	return [results.flat()];
}

/** The Concurrency option, checked: read once per execution (item 0), by the item runner and by Wait for Callback. */
export function readConcurrency(ctx: IExecuteFunctions): number {
	const raw = ctx.getNodeParameter(
		`options.${concurrencyOption.name}`,
		0,
		DEFAULT_CONCURRENCY,
	) as unknown;
	const value = Number(raw);
	if (!Number.isInteger(value) || value < 1 || value > MAX_CONCURRENCY) {
		const label = concurrencyOption.displayName;
		throw new NodeOperationError(
			ctx.getNode(),
			`${label} must be a whole number from 1 to ${MAX_CONCURRENCY}`,
			{
				description: `Got "${String(raw)}". Set Options → ${label} to, for example, ${DEFAULT_CONCURRENCY}.`,
			},
		);
	}
	return value;
}

function errorItem(
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
	taskIds: string[],
): INodeExecutionData {
	return { json: errorItemJson(error, taskIds), pairedItem: { item: itemIndex } };
}

/**
 * The node's error names every task any item created: without Continue On Fail the other items'
 * output is dropped, and with it the only record of tasks that keep running (and cost money).
 */
function withCreatedTasks<E extends NodeApiError | NodeOperationError>(
	error: E,
	createdTasks: Map<number, string[]>,
): E {
	if (createdTasks.size === 0) return error;
	const list = [...createdTasks.entries()]
		.sort(([a], [b]) => a - b)
		.map(([itemIndex, ids]) => `item ${itemIndex}: ${ids.join(', ')}`)
		.join('; ');
	error.description =
		`${error.description ? `${error.description} ` : ''}` +
		`Tasks this node already created on the gateway keep running there and may be billed (${list}). ` +
		`Fetch them with the Video node's "Get Task" or "Wait for Task" operation instead of creating them again.`;
	return error;
}

/** A counting semaphore with a FIFO queue: fair between new items and items resuming a poll. */
class Semaphore {
	private readonly waiting: Array<() => void> = [];

	constructor(private free: number) {}

	async acquire(): Promise<void> {
		if (this.free > 0) {
			this.free--;
			return;
		}
		await new Promise<void>((resolve) => this.waiting.push(resolve));
	}

	release(): void {
		const next = this.waiting.shift();
		if (next) next();
		else this.free++;
	}
}
