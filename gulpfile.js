// tsc does not copy assets: n8n resolves a node's icons and codex next to its compiled .js file,
// and the package's entry point (index.js) must ship inside dist/ because `files` is ["dist"].
const fs = require('node:fs');
const { src, dest, parallel, series } = require('gulp');

// A file renamed or removed in the source must not linger in dist/: `npm pack` ships all of dist/.
function clean(done) {
	fs.rmSync('dist', { recursive: true, force: true });
	done();
}

function copyIcons() {
	return src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

function copyCodex() {
	return src('nodes/**/*.node.json', { base: '.' }).pipe(dest('dist'));
}

// Output schemas: n8n serves GET /schemas/<package>.<node>/<x.y.z>/<operation>.json from the
// `__schema__` folder beside the compiled node, and its editor shows them before a node has run.
function copySchemas() {
	return src('nodes/*/__schema__/**/*.json', { base: '.' }).pipe(dest('dist'));
}

function copyEntryPoint() {
	return src('index.js').pipe(dest('dist'));
}

exports.clean = clean;
exports.build = parallel(copyIcons, copyCodex, copySchemas, copyEntryPoint);
exports['build:icons'] = copyIcons;
