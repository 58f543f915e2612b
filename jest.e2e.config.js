/** End-to-end tests: the built package installed into a real n8n (dev/n8n-host). Needs dev/n8n-host/install.sh. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.test.ts', '**/*.test.js'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
	// Each n8n CLI call costs seconds and `n8n start` tens of seconds on a busy 2-core machine.
	testTimeout: 180000,
	// One n8n at a time: they are heavy, and parallel ones would only make each other slow.
	maxWorkers: 1,
};
