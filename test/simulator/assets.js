'use strict';
/**
 * Tiny media files the simulator serves as if it were the gateway's CDN.
 * PNGs are real, decodable images (built here with zlib + CRC-32) so binary-handling code can sniff them;
 * videos only need a plausible MP4 header plus a byte count the caller controls.
 */
const zlib = require('node:zlib');
const { Readable } = require('node:stream');

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
		for (let x = 0; x < width; x++) {
			const [r, g, b, a] = pixel(x, y);
			const o = y * stride + 1 + x * 4;
			raw[o] = r;
			raw[o + 1] = g;
			raw[o + 2] = b;
			raw[o + 3] = a;
		}
	}
	return Buffer.concat([
		PNG_SIGNATURE,
		pngChunk('IHDR', ihdr),
		pngChunk('IDAT', zlib.deflateSync(raw)),
		pngChunk('IEND', Buffer.alloc(0)),
	]);
}

/** Colours derive from the name so different results give different bytes (handy when checking downloads). */
function pngFor(name) {
	let h = 2166136261;
	for (const ch of String(name)) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
	const base = [h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff];
	return makePng(2, 2, (x, y) => {
		const shift = (x + 2 * y) * 40;
		return [(base[0] + shift) & 0xff, (base[1] + shift) & 0xff, (base[2] + shift) & 0xff, 255];
	});
}

/** ftyp box ("isom", compatible isom/mp42): enough for sniffers that look at bytes 4..12. */
const MP4_FTYP = Buffer.from([
	0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d, 0x00, 0x00, 0x02, 0x00, 0x69, 0x73,
	0x6f, 0x6d, 0x6d, 0x70, 0x34, 0x32,
]);
const DEFAULT_VIDEO_BYTES = 4096;
const CHUNK = 64 * 1024;
const FILLER = Buffer.alloc(CHUNK, 0);
for (let i = 0; i < CHUNK; i++) FILLER[i] = (i * 31 + 7) & 0xff;

/** Header of an MP4-ish file of `total` bytes: ftyp then one mdat box covering the rest. */
function mp4Header(total) {
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

module.exports = { makePng, pngFor, mp4Stream, mp4Bytes, mp4Header, crc32, DEFAULT_VIDEO_BYTES, PNG_SIGNATURE };
