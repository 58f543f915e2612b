import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { ItemRun } from '../../shared/execution/itemRunner';
import { characterCreateSchema } from '../../shared/gateway/schemas';
import { compact, fieldLabels, validateBody } from '../../shared/gateway/validation';
import { imageInput } from '../../shared/parameters/imageInput';
import { optionsCollection } from '../../shared/parameters/options';
import { readText } from '../../shared/parameters/read';
import { gatewayRequest } from '../../shared/transport/request';

const name: INodeProperties = {
	displayName: 'Name',
	name: 'name',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. Captain Mira',
};
const appearance: INodeProperties = {
	displayName: 'Description',
	name: 'description',
	type: 'string',
	typeOptions: { rows: 3 },
	required: true,
	default: '',
	placeholder:
		'e.g. A tall woman in her forties, short silver hair, navy pea coat, brass compass necklace',
	description: "A text description of the character's appearance",
};
/** One entry of the Reference Images list: the image-input idiom every node uses, as list values. */
const referenceImage = imageInput({
	displayName: 'Reference Image',
	inList: true,
	sources: ['url', 'binary'],
	defaultSource: 'url',
});
const referenceImages: INodeProperties = {
	displayName: 'Reference Images',
	name: 'referenceImages',
	type: 'fixedCollection',
	typeOptions: {
		multipleValues: true,
		sortable: true,
		multipleValueButtonText: 'Add Reference Image',
	},
	default: {},
	placeholder: 'Add Reference Image',
	description: 'Optional pictures of the character',
	options: [
		{ name: 'image', displayName: referenceImage.displayName, values: referenceImage.properties },
	],
};

const properties: INodeProperties[] = [name, appearance, referenceImages, optionsCollection([])];

export const description = updateDisplayOptions({ show: { operation: ['create'] } }, properties);

async function readReferenceImages(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Promise<string[] | undefined> {
	const entries = ctx.getNodeParameter(
		`${referenceImages.name}.image`,
		itemIndex,
		[],
	) as IDataObject[];
	if (!entries.length) return undefined;
	const images: string[] = [];
	for (const [position, entry] of entries.entries()) {
		const image = await referenceImage.readEntry(
			ctx,
			itemIndex,
			entry,
			`${referenceImage.displayName} #${position + 1}`,
		);
		if (image !== undefined) images.push(image);
	}
	return images;
}

/**
 * `POST /vidmodel/v1/characters` (docs/gateway-interface.md, "Characters"). The interface shows no
 * answer, so the gateway's JSON is output unchanged ("Decisions where the interface is silent").
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
): Promise<INodeExecutionData[]> {
	const body = validateBody(
		this,
		characterCreateSchema,
		compact({
			name: readText(this, name, itemIndex),
			description: readText(this, appearance, itemIndex),
			reference_images: await readReferenceImages(this, itemIndex),
		}),
		itemIndex,
		fieldLabels({ name, description: appearance, reference_images: referenceImage }),
	);
	const response = await gatewayRequest(this, {
		method: 'POST',
		path: '/vidmodel/v1/characters',
		body,
		itemIndex,
		...run.transport,
	});
	return [
		{
			json:
				response && typeof response === 'object' && !Array.isArray(response)
					? response
					: { response },
		},
	];
}
