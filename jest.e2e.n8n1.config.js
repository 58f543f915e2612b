/**
 * End-to-end tests again in the newest n8n 1.x (dev/n8n-host/n8n1, on Node 22): the packed package
 * installed the community way into the 1.x line that many self-hosted users still run. Needs
 * `bash dev/n8n-host/install.sh 1.x`. A test file joins the 1.x matrix by adding its name here.
 */
const base = require('./jest.e2e.config.js');

const ON_N8N_1 = ['examples', 'trigger', 'wait-for-callback-lines'];

module.exports = {
	...base,
	displayName: 'n8n 1.x',
	testMatch: ON_N8N_1.map((name) => `<rootDir>/test/e2e/${name}.test.js`),
	setupFiles: ['<rootDir>/test/e2e/n8n-line-1x.js'],
};
