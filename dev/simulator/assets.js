'use strict';
/**
 * The media files the simulator serves as if it were the gateway's CDN, ones a person can look at:
 * PNG pictures drawn from the prompt and the seed at the requested aspect ratio (picture.js, encoded
 * here with zlib + CRC-32), and a short H.264 clip that plays (clip.mp4, see make-clip.js), padded
 * with an MP4 `free` box to the byte count the caller asks for.
 */
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { Readable } = require('node:stream');
const { paintScene } = require('./picture');

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let crcTable;
/** zlib.crc32 exists from Node 22.2; the table fallback keeps older runtimes working. */
function crc32(buf) {
	if (typeof zlib.crc32 === 'function') return zlib.crc32(buf) >>> 0;
	if (!crcTable) {
		crcTable = new Uint32Array(256);
		for (let n = 0; n < 256; n++) {
			let c = n;
			for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
			crcTable[n] = c >>> 0;
		}
	}
	let crc = 0xffffffff;
	for (const byte of buf) crc = crcTable[(crc ^ byte) & 0xff] ^ (crc >>> 8);
	return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type, data) {
	const length = Buffer.alloc(4);
	length.writeUInt32BE(data.length);
	const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(typeAndData));
	return Buffer.concat([length, typeAndData, crc]);
}

/** A width x height RGBA PNG; pixel (x, y) gets colour pixel(x, y) -> [r, g, b, a]. */
function makePng(width, height, pixel) {
	const rgba = Buffer.alloc(width * height * 4);
	for (let y = 0; y < height; y++) {
		for (let x = 0; x < width; x++) {
			const o = (y * width + x) * 4;
			[rgba[o], rgba[o + 1], rgba[o + 2], rgba[o + 3]] = pixel(x, y);
		}
	}
	return pngFromRgba(width, height, rgba);
}

/** A PNG of an RGBA buffer (4 bytes per pixel, rows top to bottom). */
function pngFromRgba(width, height, rgba) {
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(width, 0);
	ihdr.writeUInt32BE(height, 4);
	ihdr[8] = 8; // bit depth
	ihdr[9] = 6; // colour type RGBA
	ihdr[10] = 0; // deflate
	ihdr[11] = 0; // adaptive filtering
	ihdr[12] = 0; // no interlace
	const stride = width * 4 + 1;
	const raw = Buffer.alloc(stride * height);
	for (let y = 0; y < height; y++) {
		raw[y * stride] = 0; // filter type None
		rgba.copy(raw, y * stride + 1, y * width * 4, (y + 1) * width * 4);
	}
	return Buffer.concat([
		PNG_SIGNATURE,
		pngChunk('IHDR', ihdr),
		pngChunk('IDAT', zlib.deflateSync(raw)),
		pngChunk('IEND', Buffer.alloc(0)),
	]);
}

/**
 * What the CDN holds: the picture drawn for each result file name (the simulator records the prompt,
 * seed and size when it generates), so pngFor(name) gives exactly the bytes it serves under that name,
 * in this process. Bounded: the oldest records are dropped first.
 */
const pictures = new Map();
const MAX_PICTURES = 5000;
const rendered = new Map();
const MAX_RENDERED = 64;

/** Long side of generated pictures: big enough to see, small enough to keep downloads fast. */
const PICTURE_LONG_SIDE = 512;

/** Width and height for an `ASPECT_<w>_<h>` ratio (square when absent or unreadable). */
function pictureSize(aspectRatio) {
	const m = /^ASPECT_(\d+)_(\d+)$/.exec(String(aspectRatio ?? ''));
	const [w, h] = m && Number(m[1]) > 0 && Number(m[2]) > 0 ? [Number(m[1]), Number(m[2])] : [1, 1];
	const scale = PICTURE_LONG_SIDE / Math.max(w, h);
	return {
		width: Math.max(16, Math.round(w * scale)),
		height: Math.max(16, Math.round(h * scale)),
	};
}

/**
 * Records what the file `name` shows: the prompt (written on it), the seed and the aspect ratio. The
 * picture is drawn now, while the API call that made it is answered, so that downloading it later
 * costs no drawing (file downloads are meant to be fast, like a CDN's); `drawNow: false` for files
 * that are rarely fetched (video covers).
 */
function rememberPicture(
	name,
	{ prompt = '', seed = name, aspectRatio } = {},
	{ drawNow = true } = {},
) {
	const key = String(name);
	pictures.delete(key);
	pictures.set(key, { prompt: String(prompt), seed, ...pictureSize(aspectRatio) });
	if (pictures.size > MAX_PICTURES) pictures.delete(pictures.keys().next().value);
	rendered.delete(key);
	if (drawNow) pngFor(key);
}

/** The PNG served as `<name>.png`: the recorded picture, or (covers, inputs) a 256x256 scene drawn from the name. */
function pngFor(name) {
	const key = String(name);
	const cached = rendered.get(key);
	if (cached) return cached;
	const spec = pictures.get(key) ?? { prompt: '', seed: key, width: 256, height: 256 };
	const png = pngFromRgba(spec.width, spec.height, paintScene(spec.width, spec.height, spec));
	rendered.set(key, png);
	if (rendered.size > MAX_RENDERED) rendered.delete(rendered.keys().next().value);
	return png;
}

/** ftyp box ("isom", compatible isom/mp42): the start of files too small to hold the clip. */
const MP4_FTYP = Buffer.from([
	0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d, 0x00, 0x00, 0x02, 0x00,
	0x69, 0x73, 0x6f, 0x6d, 0x6d, 0x70, 0x34, 0x32,
]);
/** The clip that plays (2 s, 160x96, H.264), made by make-clip.js. */
const CLIP = fs.readFileSync(path.join(__dirname, 'clip.mp4'));
const DEFAULT_VIDEO_BYTES = 4096;
const CHUNK = 64 * 1024;
const FILLER = Buffer.alloc(CHUNK, 0);
for (let i = 0; i < CHUNK; i++) FILLER[i] = (i * 31 + 7) & 0xff;

/**
 * Start of an MP4 file of `total` bytes: the clip, then a `free` box header covering the rest (players
 * skip free boxes, so the file plays whatever its size). Smaller than clip + 8 bytes: the ftyp box, then
 * one mdat box covering the rest (a plausible header, not a playable file).
 */
function mp4Header(total) {
	if (total >= CLIP.length + 8) {
		const free = Buffer.alloc(8);
		free.writeUInt32BE(Math.min(total - CLIP.length, 0xffffffff), 0);
		free.write('free', 4, 'ascii');
		return Buffer.concat([CLIP, free]);
	}
	if (total < MP4_FTYP.length + 8) return MP4_FTYP.subarray(0, total);
	const mdat = Buffer.alloc(8);
	mdat.writeUInt32BE(Math.min(total - MP4_FTYP.length, 0xffffffff), 0);
	mdat.write('mdat', 4, 'ascii');
	return Buffer.concat([MP4_FTYP, mdat]);
}

/** Yields the file in 64 KiB chunks so large downloads are produced lazily (no N-byte buffer in memory). */
function* mp4Chunks(total) {
	const header = mp4Header(total);
	if (header.length > 0) yield header;
	let remaining = total - header.length;
	while (remaining > 0) {
		const n = Math.min(remaining, CHUNK);
		yield n === CHUNK ? FILLER : FILLER.subarray(0, n);
		remaining -= n;
	}
}

function mp4Stream(total = DEFAULT_VIDEO_BYTES) {
	return Readable.from(mp4Chunks(total), { objectMode: false });
}

function mp4Bytes(total = DEFAULT_VIDEO_BYTES) {
	return Buffer.concat([...mp4Chunks(total)]);
}

module.exports = {
	makePng,
	pngFromRgba,
	pngFor,
	rememberPicture,
	pictureSize,
	mp4Stream,
	mp4Bytes,
	mp4Header,
	crc32,
	DEFAULT_VIDEO_BYTES,
	PNG_SIGNATURE,
	CLIP,
};
