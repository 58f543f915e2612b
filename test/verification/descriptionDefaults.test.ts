/**
 * The scanner only accepts literal defaults in node descriptions, so a few defaults are written as
 * literals next to the constants the code falls back to. These must agree, or the editor would show one
 * value while an unset option behaves as another.
 */
import type { INodeProperties, INodeType } from 'n8n-workflow';

import { MediaGatewayImage } from '../../nodes/MediaGatewayImage/MediaGatewayImage.node';
import { MediaGatewayStoryboard } from '../../nodes/MediaGatewayStoryboard/MediaGatewayStoryboard.node';
import { MediaGatewayTrigger } from '../../nodes/MediaGatewayTrigger/MediaGatewayTrigger.node';
import { MediaGatewayVideo } from '../../nodes/MediaGatewayVideo/MediaGatewayVideo.node';
import { DEDUPE_DEFAULTS } from '../../nodes/MediaGatewayTrigger/dedupe';
import { VIDEO_MODELS } from '../../nodes/shared/gateway/schemas';

/** Every parameter, including those inside collections, with the operations it is shown for. */
function allParameters(node: INodeType): INodeProperties[] {
	const out: INodeProperties[] = [];
	const walk = (list: INodeProperties[], inherited?: INodeProperties['displayOptions']) => {
		for (const p of list) {
			const withShow = { ...p, displayOptions: p.displayOptions ?? inherited };
			out.push(withShow);
			if (p.type === 'collection') walk(p.options as INodeProperties[], withShow.displayOptions);
		}
	};
	walk(node.description.properties);
	return out;
}

const shownFor = (p: INodeProperties) =>
	(p.displayOptions?.show?.operation as string[] | undefined) ?? [];

it("Duplicate Memory Size defaults to the trigger's built-in memory size", () => {
	const size = allParameters(new MediaGatewayTrigger()).find(
		(p) => p.name === 'duplicateMemorySize',
	);
	expect(size?.default).toBe(DEDUPE_DEFAULTS.maxEntries);
});

it('Quality Tier defaults to the Standard model on every node that creates videos', () => {
	for (const node of [new MediaGatewayVideo(), new MediaGatewayStoryboard()]) {
		const tiers = allParameters(node).filter((p) => p.name === 'model');
		expect(tiers.length).toBeGreaterThan(0);
		for (const tier of tiers) expect(tier.default).toBe(VIDEO_MODELS[0]);
	}
});

it('Download is on for images and off for videos, whose files are large', () => {
	const downloads = (node: INodeType) => allParameters(node).filter((p) => p.name === 'download');
	const image = downloads(new MediaGatewayImage());
	expect(image.length).toBeGreaterThan(0);
	for (const p of image) expect(p.default).toBe(true);
	const video = downloads(new MediaGatewayVideo());
	expect(video.length).toBeGreaterThan(0);
	for (const p of video) expect(p.default).toBe(false);
});

it('an optional image input (the Edit mask) starts at None, a required one at Binary Field', () => {
	const edit = allParameters(new MediaGatewayImage()).filter((p) => shownFor(p).includes('edit'));
	const sources = Object.fromEntries(
		edit.filter((p) => p.name.endsWith('Source')).map((p) => [p.name, p.default]),
	);
	expect(sources).toEqual({ imageSource: 'binary', maskSource: 'none' });
});
