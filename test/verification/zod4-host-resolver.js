'use strict';
/**
 * Jest resolver for the "zod 4 host" run (jest.zod4.config.js): the nodes resolve `zod` from the n8n
 * host, so when node code (nodes/, credentials/) imports `zod` or a `zod/...` subpath it gets the zod 4.x
 * installed as the devDependency `zod-v4`, exactly as on an n8n whose own zod is 4.x. Everything else
 * (n8n-workflow, the tests) keeps its usual resolution.
 */
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const NODE_CODE = [path.join(ROOT, 'nodes') + path.sep, path.join(ROOT, 'credentials') + path.sep];

module.exports = (request, options) => {
	const fromNodeCode = NODE_CODE.some((dir) => `${options.basedir}${path.sep}`.startsWith(dir));
	if (fromNodeCode && (request === 'zod' || request.startsWith('zod/'))) {
		return options.defaultResolver(request.replace(/^zod/, 'zod-v4'), options);
	}
	return options.defaultResolver(request, options);
};
