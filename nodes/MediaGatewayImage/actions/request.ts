/**
 * The one path every image operation takes (docs/gateway-interface.md, "Images"): validate the
 * body, send it to `/imgmodel/v1/imgmodel-v3/<endpoint>`, turn the answer into items.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { ZodType, ZodTypeDef } from 'zod/v3';

import type { ItemRun } from '../../shared/execution/itemRunner';
import { compact, type FieldLabels, validateBody } from '../../shared/gateway/validation';
import { gatewayRequest } from '../../shared/transport/request';
import { imageResultItems } from './results';

export interface ImageRequest {
	/** The operation's value, written into every output item. */
	operation: string;
	/** Last path segment of the gateway endpoint. */
	endpoint: string;
	schema: ZodType<IDataObject, ZodTypeDef, unknown>;
	body: IDataObject;
	/** Body field → the label of the parameter it is read from (see `fieldLabels`). */
	labels: FieldLabels;
}

export async function sendImageRequest(
	ctx: IExecuteFunctions,
	itemIndex: number,
	run: ItemRun,
	request: ImageRequest,
): Promise<INodeExecutionData[]> {
	const body = validateBody(ctx, request.schema, compact(request.body), itemIndex, request.labels);
	const response = await gatewayRequest(ctx, {
		method: 'POST',
		path: `/imgmodel/v1/imgmodel-v3/${request.endpoint}`,
		body,
		itemIndex,
		...run.transport,
	});
	return await imageResultItems(ctx, itemIndex, response, request.operation, run);
}

/** What an image operation declares; `imageOperation` turns it into the operation's description and execute. */
export interface ImageOperationSpec extends Omit<ImageRequest, 'body'> {
	/** The operation's own fields, shown only when it is selected. */
	properties: INodeProperties[];
	/** The request body, read from the item's parameters. */
	body: (ctx: IExecuteFunctions, itemIndex: number) => Promise<IDataObject> | IDataObject;
}

/** An image operation: its fields (shown for it alone) and the request it sends. */
export function imageOperation(spec: ImageOperationSpec) {
	const { properties, body, ...request } = spec;
	return {
		description: updateDisplayOptions({ show: { operation: [spec.operation] } }, properties),
		async execute(
			this: IExecuteFunctions,
			itemIndex: number,
			run: ItemRun,
		): Promise<INodeExecutionData[]> {
			return await sendImageRequest(this, itemIndex, run, {
				...request,
				body: await body(this, itemIndex),
			});
		},
	};
}
