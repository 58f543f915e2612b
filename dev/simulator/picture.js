'use strict';

// The project's one seeded PRNG (mulberry32), shared with the tests' load helpers.
const { prng: random } = require('../prng');
/**
 * Pictures a person can look at, drawn in plain Node: a landscape whose colours come from the prompt
 * and whose sun, hills and stars come from the seed, with the prompt written across the bottom in a
 * 5x7 bitmap font. Used for the simulator's image results and for the frames of its video clip.
 */

/** 5x7 glyphs, one string of 7 rows of 5 bits per character; lower case is drawn as upper case. */
const FONT = {
	A: '01110 10001 10001 11111 10001 10001 10001',
	B: '11110 10001 10001 11110 10001 10001 11110',
	C: '01110 10001 10000 10000 10000 10001 01110',
	D: '11110 10001 10001 10001 10001 10001 11110',
	E: '11111 10000 10000 11110 10000 10000 11111',
	F: '11111 10000 10000 11110 10000 10000 10000',
	G: '01110 10001 10000 10111 10001 10001 01111',
	H: '10001 10001 10001 11111 10001 10001 10001',
	I: '01110 00100 00100 00100 00100 00100 01110',
	J: '00111 00010 00010 00010 00010 10010 01100',
	K: '10001 10010 10100 11000 10100 10010 10001',
	L: '10000 10000 10000 10000 10000 10000 11111',
	M: '10001 11011 10101 10101 10001 10001 10001',
	N: '10001 10001 11001 10101 10011 10001 10001',
	O: '01110 10001 10001 10001 10001 10001 01110',
	P: '11110 10001 10001 11110 10000 10000 10000',
	Q: '01110 10001 10001 10001 10101 10010 01101',
	R: '11110 10001 10001 11110 10100 10010 10001',
	S: '01111 10000 10000 01110 00001 00001 11110',
	T: '11111 00100 00100 00100 00100 00100 00100',
	U: '10001 10001 10001 10001 10001 10001 01110',
	V: '10001 10001 10001 10001 10001 01010 00100',
	W: '10001 10001 10001 10101 10101 10101 01010',
	X: '10001 10001 01010 00100 01010 10001 10001',
	Y: '10001 10001 01010 00100 00100 00100 00100',
	Z: '11111 00001 00010 00100 01000 10000 11111',
	0: '01110 10001 10011 10101 11001 10001 01110',
	1: '00100 01100 00100 00100 00100 00100 01110',
	2: '01110 10001 00001 00010 00100 01000 11111',
	3: '11111 00010 00100 00010 00001 10001 01110',
	4: '00010 00110 01010 10010 11111 00010 00010',
	5: '11111 10000 11110 00001 00001 10001 01110',
	6: '00110 01000 10000 11110 10001 10001 01110',
	7: '11111 00001 00010 00100 01000 01000 01000',
	8: '01110 10001 10001 01110 10001 10001 01110',
	9: '01110 10001 10001 01111 00001 00010 01100',
	' ': '00000 00000 00000 00000 00000 00000 00000',
	'.': '00000 00000 00000 00000 00000 01100 01100',
	',': '00000 00000 00000 00000 01100 00100 01000',
	'!': '00100 00100 00100 00100 00100 00000 00100',
	'?': '01110 10001 00001 00010 00100 00000 00100',
	'-': '00000 00000 00000 11111 00000 00000 00000',
	':': '00000 01100 01100 00000 01100 01100 00000',
	"'": '00100 00100 01000 00000 00000 00000 00000',
	'"': '01010 01010 00000 00000 00000 00000 00000',
	'/': '00001 00010 00010 00100 01000 01000 10000',
	'(': '00010 00100 01000 01000 01000 00100 00010',
	')': '01000 00100 00010 00010 00010 00100 01000',
	'#': '01010 11111 01010 01010 01010 11111 01010',
	'%': '11001 11010 00010 00100 01000 01011 10011',
};
const GLYPHS = Object.fromEntries(
	Object.entries(FONT).map(([ch, rows]) => [
		ch,
		rows.split(' ').map((row) => [...row].map((bit) => bit === '1')),
	]),
);
const UNKNOWN = GLYPHS['?'];

/** FNV-1a: stable across runs and machines, so the same prompt always gets the same colours. */
function hash(text) {
	let h = 2166136261;
	for (const ch of String(text)) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
	return h;
}

function hsl(h, s, l) {
	const a = s * Math.min(l, 1 - l);
	const f = (n) => {
		const k = (n + h / 30) % 12;
		return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
	};
	return [f(0), f(8), f(4)];
}

const mix = (a, b, t) => [0, 1, 2].map((i) => Math.round(a[i] + (b[i] - a[i]) * t));

/** Upper-cased text broken into lines that fit `columns` characters (at most `maxLines`, the last cut with ...). */
function wrap(text, columns, maxLines) {
	const words = String(text).toUpperCase().split(/\s+/).filter(Boolean);
	const lines = [];
	let line = '';
	for (const word of words) {
		const candidate = line ? `${line} ${word}` : word;
		if (candidate.length <= columns) line = candidate;
		else {
			if (line) lines.push(line);
			line = word.slice(0, columns);
		}
	}
	if (line) lines.push(line);
	if (lines.length > maxLines) {
		lines.length = maxLines;
		lines[maxLines - 1] = `${lines[maxLines - 1].slice(0, columns - 3)}...`;
	}
	return lines;
}

/**
 * Paints a width x height scene into an RGBA buffer.
 * @param {object} scene
 * @param {string} scene.prompt  picks the palette and is written on the picture
 * @param {number|string} scene.seed  places the sun, the hills and the stars
 * @param {number} [scene.time]  0..1: moves the sun and the hills (video frames)
 * @param {boolean} [scene.caption]  write the prompt (default true)
 */
function paintScene(width, height, { prompt = '', seed = 1, time = 0, caption = true }) {
	const rgba = Buffer.alloc(width * height * 4);
	const hue = hash(prompt) % 360;
	const rand = random(hash(`seed:${seed}`));
	const skyTop = hsl(hue, 0.55, 0.25);
	const skyBottom = hsl((hue + 40) % 360, 0.7, 0.72);
	const hillColours = [
		hsl((hue + 150) % 360, 0.35, 0.42),
		hsl((hue + 170) % 360, 0.4, 0.3),
		hsl((hue + 190) % 360, 0.45, 0.2),
	];
	const sun = {
		x: width * (0.15 + 0.7 * rand()) + width * 0.25 * time,
		y: height * (0.18 + 0.22 * rand()),
		r: Math.max(3, Math.min(width, height) * (0.08 + 0.06 * rand())),
	};
	const sunColour = hsl((hue + 20) % 360, 0.95, 0.75);
	const hills = hillColours.map((colour, i) => ({
		colour,
		base: height * (0.55 + 0.12 * i),
		amplitude: height * (0.05 + 0.06 * rand()),
		frequency: (1.5 + 3 * rand()) / width,
		phase: rand() * Math.PI * 2 + time * Math.PI * (i + 1) * 0.5,
	}));
	const stars = Array.from({ length: 24 }, () => ({
		x: Math.floor(rand() * width),
		y: Math.floor(rand() * height * 0.45),
	}));

	// Per column: the topmost hill and where it starts; per row: the sky. Keeps a 512-pixel picture
	// to a few milliseconds, so serving it never holds up the simulator's other answers.
	const hillTop = new Float64Array(width * hills.length);
	for (let x = 0; x < width; x++) {
		hills.forEach((hill, i) => {
			hillTop[x * hills.length + i] =
				hill.base - hill.amplitude * Math.sin(x * hill.frequency * Math.PI * 2 + hill.phase);
		});
	}
	const glow = sun.r * 1.6;
	for (let y = 0; y < height; y++) {
		const sky = mix(skyTop, skyBottom, y / height);
		const nearSun = Math.abs(y - sun.y) < glow;
		for (let x = 0; x < width; x++) {
			let colour = sky;
			for (let i = hills.length - 1; i >= 0; i--) {
				if (y > hillTop[x * hills.length + i]) {
					colour = hills[i].colour;
					break;
				}
			}
			if (colour === sky && nearSun) {
				const dx = x - sun.x;
				const dy = y - sun.y;
				const d = Math.sqrt(dx * dx + dy * dy);
				if (d < sun.r) colour = sunColour;
				else if (d < glow) colour = mix(sunColour, sky, (d - sun.r) / (glow - sun.r));
			}
			const o = (y * width + x) * 4;
			rgba[o] = colour[0];
			rgba[o + 1] = colour[1];
			rgba[o + 2] = colour[2];
			rgba[o + 3] = 255;
		}
	}
	for (const star of stars) {
		const o = (star.y * width + star.x) * 4;
		if (rgba[o] + rgba[o + 1] + rgba[o + 2] < 330) rgba.fill(230, o, o + 3);
	}
	if (caption && prompt) writeCaption(rgba, width, height, prompt);
	return rgba;
}

/** The prompt in white on a dark band at the bottom, as large as fits. */
function writeCaption(rgba, width, height, prompt) {
	const scale = Math.max(1, Math.floor(Math.min(width / 160, height / 90)));
	const cell = 6 * scale;
	const columns = Math.max(4, Math.floor((width - 4 * scale) / cell));
	const lines = wrap(prompt, columns, 3);
	const lineHeight = 9 * scale;
	const band = lines.length * lineHeight + 3 * scale;
	for (let y = height - band; y < height; y++) {
		for (let x = 0; x < width; x++) {
			const o = (y * width + x) * 4;
			for (let c = 0; c < 3; c++) rgba[o + c] = Math.round(rgba[o + c] * 0.35);
		}
	}
	lines.forEach((line, row) => {
		const left = Math.floor((width - line.length * cell) / 2);
		const top = height - band + 2 * scale + row * lineHeight;
		[...line].forEach((ch, i) => {
			const glyph = GLYPHS[ch] ?? UNKNOWN;
			glyph.forEach((bits, gy) =>
				bits.forEach((on, gx) => {
					if (!on) return;
					for (let sy = 0; sy < scale; sy++) {
						for (let sx = 0; sx < scale; sx++) {
							const px = left + i * cell + gx * scale + sx;
							const py = top + gy * scale + sy;
							if (px < 0 || py < 0 || px >= width || py >= height) continue;
							rgba.fill(255, (py * width + px) * 4, (py * width + px) * 4 + 3);
						}
					}
				}),
			);
		});
	});
}

module.exports = { paintScene, hash };
