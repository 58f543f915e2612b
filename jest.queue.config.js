/** Queue-mode tests: n8n main + worker + webhook processors on PostgreSQL and Redis (dev/n8n-host/queue-cluster). */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/queue'],
	testMatch: ['**/*.test.js'],
	// Starting PostgreSQL, Redis and four n8n processes takes minutes on a busy 2-core machine.
	testTimeout: 180000,
	maxWorkers: 1,
};
