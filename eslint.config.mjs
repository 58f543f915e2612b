import tmp from 'tmp';
import { buildScanConfig } from '@n8n/scan-community-package/scanner/scanner.mjs';

// For editors and `npx eslint <file>`: n8n's verification scanner's own rule sets (built by the scanner
// package, not copied), with inline eslint-disable comments ignored as the scanner ignores them.
// `npm run lint` (dev/scanner-lint.mjs) is the gate: the scanner's analyzePackage over the source
// and over the npm pack tarball.
tmp.setGracefulCleanup(); // importing the scanner creates a temporary folder
export default [
	{
		ignores: [
			'dist/**',
			'node_modules/**',
			'.cache/**',
			'test/**',
			'bench/**',
			'dev/**',
			'scripts/**',
			'examples/**',
		],
	},
	{ linterOptions: { noInlineConfig: true } },
	...(await buildScanConfig()),
];
