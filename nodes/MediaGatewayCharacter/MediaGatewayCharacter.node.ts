import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { binaryFieldAsDataUri } from '../shared/parameters/imageInput';
import { optionsCollection } from '../shared/parameters/options';
import { routeItems } from '../shared/execution/itemRunner';
import { characterCreateSchema } from '../shared/gateway/schemas';
import { gatewayRequest } from '../shared/transport/request';
import { compact, stringParameter, validateBody } from '../shared/gateway/validation';

const show = { operation: ['create'] };

const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create a character',
				description: 'Create a reusable character that keeps a subject consistent across videos',
			},
		],
		default: 'create',
	},
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Captain Mira',
		displayOptions: { show },
	},
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		typeOptions: { rows: 3 },
		required: true,
		default: '',
		placeholder: 'e.g. A tall woman in her forties, short silver hair, navy pea coat, brass compass necklace',
		displayOptions: { show },
		description: "A text description of the character's appearance",
	},
	{
		displayName: 'Reference Images',
		name: 'referenceImages',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true, multipleValueButtonText: 'Add Reference Image' },
		default: {},
		placeholder: 'Add Reference Image',
		displayOptions: { show },
		description: 'Optional pictures of the character',
		options: [
			{
				name: 'image',
				displayName: 'Reference Image',
				values: [
					{
						displayName: 'Source',
						name: 'source',
						type: 'options',
						options: [
							{ name: 'URL', value: 'url' },
							{ name: 'Binary Field', value: 'binary', description: 'Sent as a data URI' },
						],
						default: 'url',
					},
					{
						displayName: 'URL',
						name: 'url',
						type: 'string',
						default: '',
						placeholder: 'https://example.com/mira.png',
						displayOptions: { show: { source: ['url'] } },
					},
					{
						displayName: 'Binary Field',
						name: 'binaryField',
						type: 'string',
						default: 'data',
						displayOptions: { show: { source: ['binary'] } },
						hint: 'The name of the binary field of the input item that holds the image',
					},
				],
			},
		],
	},
	optionsCollection('create', []),
];

async function readReferenceImages(ctx: IExecuteFunctions, itemIndex: number): Promise<string[] | undefined> {
	const entries = ctx.getNodeParameter('referenceImages.image', itemIndex, []) as IDataObject[];
	if (!entries.length) return undefined;
	const images: string[] = [];
	for (const [position, entry] of entries.entries()) {
		const label = `Reference Image #${position + 1}`;
		if (entry.source === 'binary') {
			const field = String(entry.binaryField ?? '').trim();
			images.push(await binaryFieldAsDataUri(ctx, itemIndex, field, `${label} → Binary Field`));
		} else {
			const url = String(entry.url ?? '').trim();
			if (!url) {
				throw new NodeOperationError(ctx.getNode(), `${label} → URL is empty`, {
					itemIndex,
					description: 'Enter an http(s) URL of the image, or remove the entry.',
				});
			}
			images.push(url);
		}
	}
	return images;
}

/** The spec does not show the response; the gateway's JSON is output unchanged. */
async function create(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const body = validateBody(
		this,
		characterCreateSchema,
		compact({
			name: stringParameter(this, 'name', itemIndex, 'Name'),
			description: stringParameter(this, 'description', itemIndex, 'Description'),
			reference_images: await readReferenceImages(this, itemIndex),
		}),
		itemIndex,
		{ name: 'Name', description: 'Description', reference_images: 'Reference Image' },
	);
	const response = await gatewayRequest(this, {
		method: 'POST',
		path: '/vidmodel/v1/characters',
		body,
		itemIndex,
	});
	return [{ json: response && typeof response === 'object' && !Array.isArray(response) ? response : { response } }];
}

export class MediaGatewayCharacter implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Media Gateway Character',
		name: 'mediaGatewayCharacter',
		icon: { light: 'file:mediaGatewayCharacter.svg', dark: 'file:mediaGatewayCharacter.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ "create: " + $parameter["name"] }}',
		description: 'Create reusable characters that keep subjects consistent across videos',
		defaults: { name: 'Media Gateway Character' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'mediaGatewayApi', required: true }],
		properties,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await routeItems.call(this, { create });
	}
}
