import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ItemRun } from '../../shared/execution/itemRunner';
import { readDownloadLimits } from '../../shared/parameters/options';
import { downloadToBinary } from '../../shared/transport/download';

interface GatewayImage {
	url?: string;
	prompt?: string;
	resolution?: string;
	is_image_safe?: boolean;
	seed?: number;
}

function parseResolution(resolution: unknown): { width?: number; height?: number } {
	const match =
		typeof resolution === 'string' ? /^(\d+)\s*x\s*(\d+)$/i.exec(resolution.trim()) : null;
	return match ? { width: Number(match[1]), height: Number(match[2]) } : {};
}

/**
 * One output item per generated image. docs/gateway-interface.md ("Images") shows this answer for
 * Generate only; the other image operations are assumed to answer alike, and an answer without a
 * `data` list is passed through unchanged rather than guessed at ("Decisions where the interface
 * is silent").
 */
export async function imageResultItems(
	ctx: IExecuteFunctions,
	itemIndex: number,
	response: IDataObject,
	operation: string,
	run: Pick<ItemRun, 'transport'>,
): Promise<INodeExecutionData[]> {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const download = options.download !== false;
	const field = String(options.binaryPropertyName ?? 'data').trim() || 'data';

	if (!Array.isArray(response?.data)) {
		return [{ json: { operation, ...response } }];
	}
	const images = response.data as GatewayImage[];
	if (images.length === 0) {
		throw new NodeOperationError(ctx.getNode(), 'The gateway returned no image', {
			itemIndex,
			description: 'The request succeeded but its result list is empty. Try another prompt.',
		});
	}
	const created = typeof response.created === 'number' ? response.created : undefined;
	return await Promise.all(
		images.map(async (image, position) => {
			const json: IDataObject = {
				operation,
				url: image.url,
				prompt: image.prompt,
				resolution: image.resolution,
				...parseResolution(image.resolution),
				seed: image.seed,
				isImageSafe: image.is_image_safe,
				created,
				createdAt: created !== undefined ? new Date(created * 1000).toISOString() : undefined,
				index: position,
			};
			const item: INodeExecutionData = { json };
			if (download) {
				item.binary = {
					[field]: await downloadToBinary(ctx, String(image.url ?? ''), {
						itemIndex,
						fileNameBase: `image-${String(image.seed ?? position)}`,
						defaultMimeType: 'image/png',
						expectedPrefix: 'image/',
						limits: readDownloadLimits(ctx, itemIndex, 'image'),
						retry: run.transport.retry,
					}),
				};
			}
			return item;
		}),
	);
}
