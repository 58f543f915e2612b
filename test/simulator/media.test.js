'use strict';
/**
 * The simulator's result files are things a person can look at: pictures drawn from the prompt and
 * the seed at the requested aspect ratio, and a short H.264 clip that plays, padded to the size asked.
 */
const zlib = require('node:zlib');
const { startSimulator } = require('../../dev/simulator');
const { CLIP, DEFAULT_VIDEO_BYTES, pngFor, pictureSize } = require('../../dev/simulator/assets');
const { encodeClip } = require('../../dev/simulator/make-clip');

const KEY = 'media-test-key';
let sim;

beforeAll(async () => {
	sim = await startSimulator({ apiKey: KEY, port: 0, videoCompleteAfterMs: 50 });
});
afterAll(async () => {
	await sim.close();
});

async function generate(body) {
	const res = await fetch(`${sim.url}/imgmodel/v1/imgmodel-v3/generate`, {
		method: 'POST',
		headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	expect(res.status).toBe(200);
	const [image] = (await res.json()).data;
	const file = Buffer.from(await (await fetch(image.url)).arrayBuffer());
	return { image, file };
}

/** Width, height and the RGBA pixels of a PNG written by the simulator (filter type 0 rows). */
function decodePng(png) {
	let offset = 8;
	let width = 0;
	let height = 0;
	const idat = [];
	while (offset < png.length) {
		const length = png.readUInt32BE(offset);
		const type = png.toString('ascii', offset + 4, offset + 8);
		const data = png.subarray(offset + 8, offset + 8 + length);
		if (type === 'IHDR') [width, height] = [data.readUInt32BE(0), data.readUInt32BE(4)];
		if (type === 'IDAT') idat.push(data);
		offset += 12 + length;
	}
	const raw = zlib.inflateSync(Buffer.concat(idat));
	const pixels = Buffer.alloc(width * height * 4);
	for (let y = 0; y < height; y++)
		raw.copy(pixels, y * width * 4, y * (width * 4 + 1) + 1, (y + 1) * (width * 4 + 1));
	return { width, height, pixels };
}

function distinctColours(pixels) {
	const colours = new Set();
	for (let o = 0; o < pixels.length; o += 4) colours.add(pixels.readUInt32BE(o));
	return colours.size;
}

describe('pictures', () => {
	test.each([
		['ASPECT_16_9', 512, 288],
		['ASPECT_9_16', 288, 512],
		['ASPECT_1_1', 512, 512],
		['ASPECT_4_3', 512, 384],
	])('%s is drawn at that aspect ratio', async (aspectRatio, width, height) => {
		const { file } = await generate({ prompt: 'A lighthouse at dawn', aspect_ratio: aspectRatio });
		const png = decodePng(file);
		expect([png.width, png.height]).toEqual([width, height]);
		// A scene, not a swatch: sky gradient, sun, hills and the caption give many colours.
		expect(distinctColours(png.pixels)).toBeGreaterThan(50);
	});

	test('the prompt and the seed decide the picture; the served bytes are what pngFor(seed) gives', async () => {
		const a = await generate({ prompt: 'A red fox in the snow' });
		const b = await generate({ prompt: 'A blue whale at night' });
		expect(a.file.equals(pngFor(String(a.image.seed)))).toBe(true);
		expect(a.file.equals(b.file)).toBe(false);
		// The caption: the bottom band of the picture holds white text pixels.
		const { width, height, pixels } = decodePng(a.file);
		let white = 0;
		for (let y = Math.floor(height * 0.8); y < height; y++) {
			for (let x = 0; x < width; x++)
				if (pixels.readUInt32BE((y * width + x) * 4) === 0xffffffff) white++;
		}
		expect(white).toBeGreaterThan(200);
	});

	test('an unknown name (an input or a cover) is still a picture', () => {
		const png = decodePng(pngFor('some-input'));
		expect([png.width, png.height]).toEqual([256, 256]);
		expect(pictureSize('nonsense')).toEqual({ width: 512, height: 512 });
	});
});

describe('videos', () => {
	test('the default file is the H.264 clip padded with a free box to the default size', async () => {
		const created = await fetch(`${sim.url}/v1/video/create`, {
			method: 'POST',
			headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
			body: JSON.stringify({ model: 'vidmodel', prompt: 'waves', aspect_ratio: '16:9' }),
		}).then((r) => r.json());
		const file = Buffer.from(
			await (await fetch(`${sim.url}/files/videos/${created.id}.mp4`)).arrayBuffer(),
		);
		expect(file.length).toBe(DEFAULT_VIDEO_BYTES);
		expect(file.subarray(0, CLIP.length).equals(CLIP)).toBe(true);
		expect(file.toString('latin1', CLIP.length + 4, CLIP.length + 8)).toBe('free');
		expect(file.readUInt32BE(CLIP.length)).toBe(DEFAULT_VIDEO_BYTES - CLIP.length);
		// An H.264 video track: moov with an avc1 sample entry.
		expect(CLIP.includes(Buffer.from('moov'))).toBe(true);
		expect(CLIP.includes(Buffer.from('avc1'))).toBe(true);
	});

	test('larger files keep the clip in front, so they play too', async () => {
		const file = Buffer.from(
			await (await fetch(`${sim.url}/files/videos/vid_any.mp4?bytes=100000`)).arrayBuffer(),
		);
		expect(file.length).toBe(100000);
		expect(file.subarray(0, CLIP.length).equals(CLIP)).toBe(true);
		expect(file.readUInt32BE(CLIP.length)).toBe(100000 - CLIP.length);
	});

	test('clip.mp4 is what make-clip.js encodes (regenerate with node dev/simulator/make-clip.js)', async () => {
		const encoded = await encodeClip();
		expect(encoded.length).toBeLessThanOrEqual(DEFAULT_VIDEO_BYTES - 8);
		expect(encoded.equals(CLIP)).toBe(true);
	});
});
