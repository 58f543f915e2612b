/** Editor tests: the package in n8n's editor, in Debian's Chromium driven by playwright-core (test/editor). */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/editor'],
	testMatch: ['**/*.test.js'],
	// Starting n8n and a browser, and runs from the canvas, take tens of seconds on a busy 2-core machine.
	testTimeout: 180000,
	maxWorkers: 1,
};
