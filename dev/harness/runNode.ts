/**
 * Runs ONE node type through n8n's real execution engine (n8n-core's WorkflowExecute), so the node
 * under test gets the real helpers: httpRequestWithAuthentication (credential `authenticate`
 * applied the way n8n's CredentialsHelper does it), prepareBinaryData / getBinaryDataBuffer /
 * binaryToBuffer backed by the real BinaryDataService, continueOnFail, getExecutionCancelSignal,
 * expression evaluation of parameters and n8n's own error handling.
 *
 * Workflow built per run:  [Harness Input] --main--> [Node Under Test]
 * "Harness Input" is a tiny node defined here that re-emits the given items; it stores their binary
 * through prepareBinaryData first, as any real upstream node would, so in filesystem mode the node
 * under test receives binary references (not inline base64), exactly as in a real n8n 2.x instance.
 *
 * Runs are meant to be sequential within one jest file (the logger and binary service are
 * process-wide singletons in n8n's DI container).
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
	BinaryDataConfig,
	BinaryDataService,
	Credentials,
	ErrorReporter,
	ExecutionLifecycleHooks,
	ExternalSecretsProxy,
	WorkflowExecute,
	getAdditionalKeys,
} from 'n8n-core';
import {
	ICredentialsHelper,
	LoggerProxy,
	NodeHelpers,
	Workflow,
	createRunExecutionData,
	isExpression,
} from 'n8n-workflow';
import type {
	IBinaryData,
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentialsExpressionResolveValues,
	IDataObject,
	IExecuteData,
	IExecuteFunctions,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IRequestOptionsSimplified,
	IRun,
	ITaskData,
	IVersionedNodeType,
	IWorkflowDataProxyAdditionalKeys,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';

/* ------------------------------------------------------------------ public types */

export interface HarnessBinaryInput {
	/** base64 of the file content */
	data: string;
	mimeType: string;
	fileName?: string;
}

export interface HarnessInputItem {
	json: IDataObject;
	binary?: Record<string, HarnessBinaryInput>;
}

export interface RunNodeOptions {
	/** The node under test. */
	nodeType: INodeType | IVersionedNodeType;
	/** Credential types known to this run (n8n refuses credentials of an unknown type). */
	credentialTypes?: ICredentialType[];
	/** Decrypted credential data by credential type name, as stored in n8n. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** Node parameters as saved in a workflow; `={{ ... }}` expressions are evaluated by n8n. */
	parameters?: INodeParameters;
	/** Items fed into the node under test (default: one empty item). */
	input?: HarnessInputItem[];
	/** Sets the node's "On Error" to "Continue (regular output)", i.e. `this.continueOnFail()` is true. */
	continueOnFail?: boolean;
	/** Default: the highest version the node type declares. */
	typeVersion?: number;
	/** Aborting it cancels the execution, as the "Stop" button does. */
	abortSignal?: AbortSignal;
	/** Cancels the execution after this many ms, as n8n's workflow timeout does. */
	timeoutMs?: number;
	/** How long to wait for the node to actually stop after a cancel (default 5000 ms). */
	cancelGraceMs?: number;
	/** Default 'manual' (a run from the editor); use e.g. 'trigger' for a production run. */
	mode?: WorkflowExecuteMode;
	/**
	 * Binary data storage. Default 'filesystem', which is what a regular (non-queue) n8n 2.x instance
	 * uses; 'default' keeps binary inline as base64 in the item (the old in-memory mode).
	 */
	binaryDataMode?: 'filesystem' | 'default';
	/** Name of the node under test in the workflow (default: the type's displayName). */
	nodeName?: string;
}

export interface HarnessError {
	message: string;
	description?: string | null;
	httpCode?: string | null;
	name?: string;
	itemIndex?: number;
	context?: IDataObject;
	/** The error as n8n stored it in the execution data (a plain object). */
	raw: IDataObject;
}

export interface HarnessLogEntry {
	level: 'error' | 'warn' | 'info' | 'debug';
	message: string;
	metadata?: unknown;
}

export interface RunNodeResult {
	/** Main output 0 of the node under test. */
	items: INodeExecutionData[];
	/** All main outputs of the node under test. */
	outputs: INodeExecutionData[][];
	/** The execution's error as n8n reports it (absent when the execution succeeded). */
	error?: HarnessError;
	/** The node's own error, also present when "continue on fail" turned it into output. */
	nodeError?: HarnessError;
	/** As n8n stores it; for a cancelled run that is the status at cancel time ('canceled'). */
	executionStatus: IRun['status'];
	/** Everything n8n and the node logged during the run (this.logger, LoggerProxy, ErrorReporter). */
	logs: HarnessLogEntry[];
	/** True when the run was cancelled (abortSignal or timeoutMs). */
	cancelled: boolean;
	/** True when the cancel came from timeoutMs. */
	timedOut: boolean;
	/** After a cancel: whether the node stopped within cancelGraceMs. */
	stoppedAfterCancel?: boolean;
	/** The full IRun, for anything else. */
	run: IRun;
	/** Content of a binary property of an output item, read through n8n's BinaryDataService. */
	binaryBuffer(item: INodeExecutionData, field: string): Promise<Buffer>;
}

/* ------------------------------------------------------------------ process-wide setup */

const PACKAGE_NAME = (
	JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as {
		name: string;
	}
).name;

const SOURCE_NODE_TYPE = 'n8n-nodes-harness.harnessInput';
const SOURCE_NODE_NAME = 'Harness Input';
const BASE_URL = 'http://127.0.0.1:5678';

/** Collects log lines of the current run; n8n resolves its Logger from the DI container. */
class RecordingLogger {
	entries: HarnessLogEntry[] = [];

	error(message: string, metadata?: unknown) {
		this.entries.push({ level: 'error', message, metadata });
	}

	warn(message: string, metadata?: unknown) {
		this.entries.push({ level: 'warn', message, metadata });
	}

	info(message: string, metadata?: unknown) {
		this.entries.push({ level: 'info', message, metadata });
	}

	debug(message: string, metadata?: unknown) {
		this.entries.push({ level: 'debug', message, metadata });
	}

	scoped() {
		return this;
	}
}

const sharedLogger = new RecordingLogger();

interface Environment {
	userFolder: string;
	binaryServices: Map<string, BinaryDataService>;
}

let environment: Environment | undefined;

function setupEnvironment(): Environment {
	if (environment) return environment;
	// n8n's InstanceSettings writes a settings file into the user folder: keep it in a throwaway dir
	// (read lazily by @n8n/config when the container first builds the config classes).
	const userFolder = mkdtempSync(path.join(tmpdir(), 'n8n-harness-'));
	process.env.N8N_USER_FOLDER = userFolder;
	process.env.N8N_ENCRYPTION_KEY ??= 'harness-encryption-key';
	process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
	environment = { userFolder, binaryServices: new Map() };
	return environment;
}

// Jest sandboxes `process`, so an 'exit' handler would not fire: clean up after the test file.
// Registered at import time because jest forbids defining hooks from inside a test.
if (typeof afterAll === 'function') {
	afterAll(() => {
		if (environment) rmSync(environment.userFolder, { recursive: true, force: true });
	});
}

async function getBinaryDataService(
	mode: 'filesystem' | 'default',
	logger: Logger,
): Promise<BinaryDataService> {
	const env = setupEnvironment();
	let service = env.binaryServices.get(mode);
	if (!service) {
		const config = Container.get(BinaryDataConfig);
		const modeConfig = Object.assign(
			Object.create(Object.getPrototypeOf(config) as object),
			config,
			{
				mode,
				localStoragePath: path.join(env.userFolder, 'binary-data'),
			},
		) as BinaryDataConfig;
		service = new BinaryDataService(modeConfig, Container.get(ErrorReporter), logger);
		await service.init();
		env.binaryServices.set(mode, service);
	}
	return service;
}

/* ------------------------------------------------------------------ node types */

/** Re-emits the harness input; binary goes through prepareBinaryData like any real source node. */
class HarnessInput implements INodeType {
	description: INodeTypeDescription = {
		displayName: SOURCE_NODE_NAME,
		name: 'harnessInput',
		group: ['transform'],
		version: 1,
		description: 'Emits the items given to runNode()',
		defaults: { name: SOURCE_NODE_NAME },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const item = items[i];
			const outItem: INodeExecutionData = { json: item.json, pairedItem: { item: i } };
			if (item.binary) {
				outItem.binary = {};
				for (const [key, bin] of Object.entries(item.binary)) {
					outItem.binary[key] = await this.helpers.prepareBinaryData(
						Buffer.from(bin.data, 'base64'),
						bin.fileName,
						bin.mimeType,
					);
				}
			}
			out.push(outItem);
		}
		return [out];
	}
}

class HarnessNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, INodeType | IVersionedNodeType>) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types[nodeType];
		if (!type) throw new Error(`Unknown node type "${nodeType}"`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

function defaultVersion(nodeType: INodeType | IVersionedNodeType): number {
	if ('nodeVersions' in nodeType) return nodeType.currentVersion;
	const { version } = nodeType.description;
	return Array.isArray(version) ? Math.max(...version) : version;
}

/* ------------------------------------------------------------------ credentials */

/**
 * Stands in for n8n's CredentialsHelper (packages/cli, not part of n8n-core): same generic
 * `authenticate` application with `$credentials` expressions resolved by the workflow's expression
 * engine, same defaults-and-expressions pass in getDecrypted, same preAuthentication rules;
 * the "database" is the `credentials` map given to runNode.
 */
class HarnessCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly types: Map<string, ICredentialType>,
		private readonly store: Record<string, ICredentialDataDecryptedObject>,
		private readonly nodeTypes: INodeTypes,
	) {
		super();
	}

	private getType(name: string): ICredentialType {
		const type = this.types.get(name);
		if (!type) throw new Error(`Unknown credential type "${name}"`);
		return type;
	}

	getParentTypes(name: string): string[] {
		const parents = this.types.get(name)?.extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		const type = this.types.get(credentialType);
		if (!type?.restrictToSupportedNodes) return true;
		return (type.supportedNodes ?? []).some((n) => nodeType === n || nodeType.endsWith(`.${n}`));
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incoming: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incoming as IHttpRequestOptions;
		const { authenticate } = this.getType(typeName);
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions);
		}
		if (typeof authenticate === 'object' && authenticate.type === 'generic') {
			if (!workflow || !node) {
				throw new Error('Workflow and node are required for declarative credential authentication');
			}
			requestOptions.headers ??= {};
			const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
			for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
				for (const [key, value] of Object.entries(outerValue as Record<string, unknown>)) {
					const keyResolved = this.resolveValue(key, credentials, workflow, node);
					const valueResolved = this.resolveValue(value as string, credentials, workflow, node);
					target[outerKey] ??= {};
					target[outerKey][keyResolved] = valueResolved;
				}
			}
		}
		return requestOptions;
	}

	private resolveValue(
		value: string,
		credentials: ICredentialDataDecryptedObject,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(value)) return value;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			{ $credentials: credentials } as IWorkflowDataProxyAdditionalKeys,
			undefined,
			'',
		);
		return resolved ? String(resolved) : '';
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.getType(typeName);
		const expirable = type.properties.find(
			(p) => p.type === 'hidden' && p.typeOptions?.expirable === true,
		);
		if (expirable?.name === undefined || typeof type.preAuthentication !== 'function') {
			return undefined;
		}
		if (credentials[expirable.name] !== '' && !credentialsExpired) return undefined;
		const output = await type.preAuthentication.call(helpers, credentials);
		if (output[expirable.name] === undefined || !node.credentials) return undefined;
		// n8n persists the refreshed token; here the "database" is the store map.
		this.store[typeName] = {
			...this.store[typeName],
			...(output as ICredentialDataDecryptedObject),
		};
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.getType(typeName);
		if (typeof type.preAuthentication !== 'function') return undefined;
		return (await type.preAuthentication.call(
			helpers,
			credentials,
		)) as ICredentialDataDecryptedObject;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<Credentials> {
		const credentials = new Credentials(
			{ id: nodeCredentials.id, name: nodeCredentials.name },
			type,
		);
		await credentials.setData(this.stored(type));
		return credentials;
	}

	private stored(type: string): ICredentialDataDecryptedObject {
		const data = this.store[type];
		if (!data) throw new Error(`No credentials of type "${type}" were given to runNode()`);
		return data;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const original = structuredClone(this.stored(type));
		if (raw === true) return original;

		// Credential property defaults, as n8n adds them.
		let decrypted = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			original as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		if (original.oauthTokenData !== undefined) decrypted.oauthTokenData = original.oauthTokenData;

		const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
		if (expressionResolveValues) {
			try {
				decrypted = expressionResolveValues.workflow.expression.getParameterValue(
					decrypted as INodeParameters,
					expressionResolveValues.runExecutionData,
					expressionResolveValues.runIndex,
					expressionResolveValues.itemIndex,
					expressionResolveValues.node.name,
					expressionResolveValues.connectionInputData,
					mode,
					additionalKeys,
					executeData,
					false,
					decrypted,
				) as ICredentialDataDecryptedObject;
			} catch (e) {
				(e as Error).message += ' [Error resolving credentials]';
				throw e;
			}
		} else {
			const mockNode: INode = {
				id: randomUUID(),
				name: '',
				typeVersion: 1,
				type: 'mock',
				position: [0, 0],
				parameters: {},
			};
			const workflow = new Workflow({
				nodes: [mockNode],
				connections: {},
				active: false,
				nodeTypes: this.nodeTypes,
			});
			decrypted = workflow.expression.getComplexParameterValue(
				mockNode,
				decrypted as INodeParameters,
				mode,
				additionalKeys,
				undefined,
				undefined,
				decrypted,
			) as ICredentialDataDecryptedObject;
		}
		return decrypted;
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.store[type] = data;
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.store[type] = { ...this.stored(type), oauthTokenData: data.oauthTokenData };
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const typeData = this.getType(type);
		if (!typeData.extends) return typeData.properties;
		const combined: INodeProperties[] = [];
		for (const parent of typeData.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(combined, typeData.properties);
		return combined;
	}
}

/* ------------------------------------------------------------------ run */

let executionCounter = 0;

function toHarnessError(error: unknown): HarnessError | undefined {
	if (error === undefined || error === null) return undefined;
	const raw = error as IDataObject & { context?: IDataObject };
	const context = raw.context && typeof raw.context === 'object' ? raw.context : undefined;
	const itemIndex = context?.itemIndex;
	const name =
		(typeof raw.name === 'string' && raw.name) ||
		(error instanceof Error ? error.constructor.name : undefined);
	return {
		message: String(raw.message ?? ''),
		description: (raw.description as string | null | undefined) ?? undefined,
		httpCode: (raw.httpCode as string | null | undefined) ?? undefined,
		name: name || undefined,
		itemIndex: typeof itemIndex === 'number' ? itemIndex : undefined,
		context,
		raw,
	};
}

export async function runNode(options: RunNodeOptions): Promise<RunNodeResult> {
	setupEnvironment();

	// One logger for the process: container singletons (ErrorReporter, ...) keep the instance they
	// were built with, so only its entry list is swapped per run.
	const logger = sharedLogger;
	logger.entries = [];
	const n8nLogger = logger as unknown as Logger;
	Container.set(Logger, n8nLogger);
	LoggerProxy.init(n8nLogger);
	const binaryDataService = await getBinaryDataService(
		options.binaryDataMode ?? 'filesystem',
		n8nLogger,
	);
	Container.set(BinaryDataService, binaryDataService);

	const mode = options.mode ?? 'manual';
	const { description } = options.nodeType;
	const nodeTypeName = `${PACKAGE_NAME}.${description.name}`;
	const nodeTypes = new HarnessNodeTypes({
		[nodeTypeName]: options.nodeType,
		[SOURCE_NODE_TYPE]: new HarnessInput(),
	});

	const credentialTypes = new Map((options.credentialTypes ?? []).map((t) => [t.name, t]));
	const credentialStore = structuredClone(options.credentials ?? {});
	for (const typeName of Object.keys(credentialStore)) {
		if (!credentialTypes.has(typeName)) {
			throw new Error(
				`runNode(): credentials given for "${typeName}", which is not in credentialTypes`,
			);
		}
	}
	const credentialsHelper = new HarnessCredentialsHelper(
		credentialTypes,
		credentialStore,
		nodeTypes,
	);

	const nodeName = options.nodeName ?? description.displayName;
	const sourceNode: INode = {
		id: randomUUID(),
		name: SOURCE_NODE_NAME,
		type: SOURCE_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const nodeUnderTest: INode = {
		id: randomUUID(),
		name: nodeName,
		type: nodeTypeName,
		typeVersion: options.typeVersion ?? defaultVersion(options.nodeType),
		position: [220, 0],
		parameters: structuredClone(options.parameters ?? {}),
		credentials: Object.fromEntries(
			Object.keys(credentialStore).map((type) => [
				type,
				{ id: `cred-${type}`, name: `${type} account` },
			]),
		),
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
	};

	const workflowId = 'harness-workflow';
	const workflowData = {
		id: workflowId,
		name: `runNode ${nodeName}`,
		nodes: [sourceNode, nodeUnderTest],
		connections: {
			[SOURCE_NODE_NAME]: { main: [[{ node: nodeName, type: 'main' as const, index: 0 }]] },
		},
		settings: { executionOrder: 'v1' as const },
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	};
	const workflow = new Workflow({
		id: workflowId,
		name: workflowData.name,
		nodes: workflowData.nodes,
		connections: workflowData.connections,
		nodeTypes,
		settings: workflowData.settings,
		active: false,
	});

	const executionId = String(++executionCounter);
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	let hookRun: IRun | undefined;
	hooks.addHandler('workflowExecuteAfter', (fullRunData) => {
		hookRun = fullRunData;
	});

	const unsupported = (what: string) => async () => {
		throw new Error(`${what} is not available in the runNode() harness`);
	};
	const additionalData: IWorkflowExecuteAdditionalData = {
		credentialsHelper,
		hooks,
		externalSecretsProxy: new ExternalSecretsProxy(),
		executeWorkflow: unsupported('executeWorkflow'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		startRunnerTask: unsupported('startRunnerTask'),
		logAiEvent: () => {},
		executionId,
		workflowId,
		userId: 'harness-user',
		projectId: 'harness-project',
		currentNodeExecutionIndex: 0,
		restApiUrl: `${BASE_URL}/rest`,
		instanceBaseUrl: `${BASE_URL}/`,
		formBaseUrl: `${BASE_URL}/form`,
		formWaitingBaseUrl: `${BASE_URL}/form-waiting`,
		formTestBaseUrl: `${BASE_URL}/form-test`,
		webhookBaseUrl: `${BASE_URL}/webhook`,
		webhookWaitingBaseUrl: `${BASE_URL}/webhook-waiting`,
		webhookTestBaseUrl: `${BASE_URL}/webhook-test`,
		mcpBaseUrl: `${BASE_URL}/mcp`,
		mcpTestBaseUrl: `${BASE_URL}/mcp-test`,
		variables: {},
		...(options.timeoutMs !== undefined
			? { executionTimeoutTimestamp: Date.now() + options.timeoutMs }
			: {}),
	};

	const inputItems: INodeExecutionData[] = (options.input ?? [{ json: {} }]).map((item) => ({
		json: item.json,
		...(item.binary
			? {
					binary: Object.fromEntries(
						Object.entries(item.binary).map(([key, bin]): [string, IBinaryData] => [
							key,
							{ data: bin.data, mimeType: bin.mimeType, fileName: bin.fileName },
						]),
					),
				}
			: {}),
	}));
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: sourceNode, data: { main: [inputItems] }, source: null }],
		},
	});

	const workflowExecute = new WorkflowExecute(additionalData, mode, runExecutionData);
	const runPromise = workflowExecute.processRunExecutionData(workflow);

	// Cancellation: what n8n's "Stop" button and its workflow timeout do (cancel the PCancelable).
	let cancelled = false;
	let cancelRequested!: () => void;
	const cancelledPromise = new Promise<'cancelled'>((resolve) => {
		cancelRequested = () => resolve('cancelled');
	});
	const cancel = (timedOut: boolean) => {
		if (cancelled) return;
		cancelled = true;
		if (timedOut) workflowExecute.timedOut = true;
		runPromise.cancel();
		cancelRequested();
	};
	const onAbort = () => cancel(false);
	if (options.abortSignal?.aborted) onAbort();
	options.abortSignal?.addEventListener('abort', onAbort);
	const timer =
		options.timeoutMs !== undefined ? setTimeout(() => cancel(true), options.timeoutMs) : undefined;

	let run: IRun;
	let executionStatus: IRun['status'] | undefined;
	let stoppedAfterCancel: boolean | undefined;
	try {
		const first = await Promise.race([runPromise, cancelledPromise]);
		if (first === 'cancelled') {
			// The node keeps running until it notices the cancel signal; give it a bounded time to stop.
			const grace = options.cancelGraceMs ?? 5000;
			let graceTimer: NodeJS.Timeout | undefined;
			const settled = await Promise.race([
				runPromise,
				new Promise<undefined>((resolve) => {
					graceTimer = setTimeout(() => resolve(undefined), grace);
				}),
			]);
			clearTimeout(graceTimer);
			stoppedAfterCancel = settled !== undefined;
			const finalRun = settled ?? hookRun;
			if (!finalRun) throw new Error('runNode(): cancelled execution produced no run data');
			run = finalRun;
			// n8n stores the run handed to workflowExecuteAfter at cancel time ('canceled'); the engine's
			// later status depends on the wording of whatever the node threw after noticing the cancel.
			executionStatus = hookRun?.status ?? finalRun.status;
		} else {
			run = first;
		}
	} finally {
		clearTimeout(timer);
		options.abortSignal?.removeEventListener('abort', onAbort);
	}

	const taskRuns: ITaskData[] = run.data.resultData.runData[nodeName] ?? [];
	const lastTask = taskRuns[taskRuns.length - 1];
	const outputs = (lastTask?.data?.main ?? []).map((output) => output ?? []);

	return {
		items: outputs[0] ?? [],
		outputs,
		error: toHarnessError(run.data.resultData.error),
		nodeError: toHarnessError(lastTask?.error),
		executionStatus: executionStatus ?? run.status,
		logs: logger.entries,
		cancelled,
		timedOut: workflowExecute.timedOut,
		stoppedAfterCancel,
		run,
		async binaryBuffer(item: INodeExecutionData, field: string): Promise<Buffer> {
			const binary = item.binary?.[field];
			if (!binary) {
				throw new Error(
					`Item has no binary property "${field}" (has: ${Object.keys(item.binary ?? {}).join(', ') || 'none'})`,
				);
			}
			return await binaryDataService.getAsBuffer(binary);
		},
	};
}
