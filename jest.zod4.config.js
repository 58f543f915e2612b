/**
 * The validation tests again, with node code resolving `zod` to zod 4.x (the devDependency `zod-v4`), as
 * on an n8n host that ships zod 4: the nodes' exact error messages must not depend on the host's zod.
 */
const base = require('./jest.config.js');

module.exports = {
	...base,
	displayName: 'zod 4 host',
	// Everything that validates input with the schemas and checks the messages.
	testMatch: [
		'<rootDir>/test/image/**/*.test.ts',
		'<rootDir>/test/video/**/*.test.ts',
		'<rootDir>/test/trigger/{callbacks,fuzz,webhook}.test.ts',
		'<rootDir>/test/verification/zodHost.test.ts',
	],
	resolver: '<rootDir>/test/verification/zod4-host-resolver.js',
	globals: { HOST_ZOD_MAJOR: 4 },
};
