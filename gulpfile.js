// tsc does not copy assets: n8n resolves a node's icons and codex next to its compiled .js file,
// and the package's entry point (index.js) must ship inside dist/ because `files` is ["dist"].
const { src, dest, parallel } = require('gulp');

function copyIcons() {
	return src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(dest('dist'));
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

exports.build = parallel(copyIcons, copyCodex, copySchemas, copyEntryPoint);
exports['build:icons'] = copyIcons;
