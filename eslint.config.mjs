import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import tsParser from '@typescript-eslint/parser';

// n8n's own community-node rules in their cloud-strict form (`recommended`): what n8n checks
// before a package may be installed on n8n Cloud. package.json is linted too, because half of
// those rules are about it (empty dependencies, peer dependencies, the n8n section, no install scripts).
export default [
	{ ignores: ['dist/**', 'node_modules/**', '.cache/**', 'test/**', 'bench/**', 'tools/**', 'scripts/**', 'examples/**'] },
	{
		files: ['**/*.ts'],
		languageOptions: { parser: tsParser, parserOptions: { ecmaVersion: 2022, sourceType: 'module' } },
	},
	{
		files: ['package.json'],
		languageOptions: { parser: tsParser, parserOptions: { extraFileExtensions: ['.json'] } },
	},
	n8nCommunityNodesPlugin.configs.recommended,
];
