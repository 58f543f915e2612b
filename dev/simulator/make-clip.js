'use strict';
/**
 * Writes dev/simulator/clip.mp4, the short H.264 video the simulator serves as every task's result:
 * 2 s at 8 fps, 160x96, a landscape whose sun and hills move (picture.js). It must stay under
 * 4088 bytes, because the simulator's default video is exactly 4096 bytes (the clip plus a `free`
 * box) and tests compare downloads with that size. Encoded with the h264-mp4-encoder devDependency
 * (H.264 in WebAssembly, from the npm registry); committed so the simulator needs no encoder at run
 * time. Run: node dev/simulator/make-clip.js   (dev/simulator/clip.test.js checks the result)
 */
const fs = require('node:fs');
const path = require('node:path');
const { paintScene } = require('./picture');

const CLIP = {
	width: 160,
	height: 96,
	frames: 16,
	fps: 8,
	quantizer: 37,
	prompt: 'Simulated video',
	seed: 7,
};
const FILE = path.join(__dirname, 'clip.mp4');

async function encodeClip() {
	const { createH264MP4Encoder } = require('h264-mp4-encoder');
	const encoder = await createH264MP4Encoder();
	encoder.width = CLIP.width;
	encoder.height = CLIP.height;
	encoder.frameRate = CLIP.fps;
	encoder.quantizationParameter = CLIP.quantizer;
	encoder.groupOfPictures = CLIP.frames;
	encoder.initialize();
	for (let frame = 0; frame < CLIP.frames; frame++) {
		encoder.addFrameRgba(
			paintScene(CLIP.width, CLIP.height, {
				prompt: CLIP.prompt,
				seed: CLIP.seed,
				time: frame / CLIP.frames,
			}),
		);
	}
	encoder.finalize();
	const bytes = Buffer.from(encoder.FS.readFile(encoder.outputFilename));
	encoder.delete();
	return withoutTimestamps(bytes);
}

/** Zeroes the creation and modification times the muxer writes, so encoding twice gives the same bytes. */
function withoutTimestamps(mp4) {
	const walk = (start, end) => {
		for (let offset = start; offset + 8 <= end;) {
			const size = mp4.readUInt32BE(offset);
			const type = mp4.toString('latin1', offset + 4, offset + 8);
			if (size < 8 || offset + size > end) break;
			if (['moov', 'trak', 'mdia'].includes(type)) walk(offset + 8, offset + size);
			// Version 0 full boxes: 4 bytes version/flags, then 32-bit creation and modification times.
			if (['mvhd', 'tkhd', 'mdhd'].includes(type) && mp4[offset + 8] === 0)
				mp4.fill(0, offset + 12, offset + 20);
			offset += size;
		}
	};
	walk(0, mp4.length);
	return mp4;
}

if (require.main === module) {
	encodeClip().then((bytes) => {
		fs.writeFileSync(FILE, bytes);
		console.log(`make-clip: wrote ${path.relative(process.cwd(), FILE)} (${bytes.length} bytes)`);
	});
}

module.exports = { encodeClip, CLIP, FILE };
