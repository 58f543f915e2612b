'use strict';
/**
 * Minimal require hook: compiles .ts files on the fly with typescript.transpileModule (no type
 * check, like ts-jest with isolatedModules), so `node -r ./dev/ts-register.js bench/x.js` can
 * load the test harness and the node classes straight from source, without a build.
 */
const fs = require('node:fs');
const ts = require('typescript');

const compilerOptions = {
	module: ts.ModuleKind.CommonJS,
	target: ts.ScriptTarget.ES2022,
	esModuleInterop: true,
	resolveJsonModule: true,
	inlineSourceMap: true,
};

require.extensions['.ts'] = function compileTs(module, filename) {
	const source = fs.readFileSync(filename, 'utf8');
	const { outputText } = ts.transpileModule(source, { fileName: filename, compilerOptions });
	module._compile(outputText, filename);
};
