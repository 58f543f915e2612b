/**
 * `npm run lint` is n8n's verification scanner, not a look-alike: a finding hidden behind an inline
 * eslint-disable comment still fails it, because n8n's scanner lints with inline config off.
 * (The repository itself is linted by the test command's own lint step, over source and tarball.)
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const LINT = path.resolve(__dirname, '..', '..', 'dev', 'scanner-lint.mjs');

function fixturePackage(nodeSource) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-lint-fixture-'));
	fs.mkdirSync(path.join(dir, 'nodes', 'Fixture'), { recursive: true });
	fs.writeFileSync(path.join(dir, 'nodes', 'Fixture', 'Fixture.node.ts'), nodeSource);
	return dir;
}

function lintSource(dir) {
	const json = path.join(dir, 'lint.json');
	const run = spawnSync(process.execPath, [LINT, '--source-only', '--dir', dir, '--json', json], {
		encoding: 'utf8',
	});
	return {
		status: run.status,
		output: run.stdout + run.stderr,
		summary: JSON.parse(fs.readFileSync(json, 'utf8')),
	};
}

const parameter = (lines) => `
import type { INodeProperties } from 'n8n-workflow';
export const properties: INodeProperties[] = [
	{
${lines}
	},
];
`;

let dirs = [];
afterEach(() => {
	for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
	dirs = [];
});

it('fails on findings that eslint-disable comments try to hide', () => {
	const dir = fixturePackage(`
import type { INodeProperties } from 'n8n-workflow';
export const properties: INodeProperties[] = [
	{
		displayName: 'Size',
		name: 'size',
		type: 'string',
		default: '1280x720',
		// eslint-disable-next-line n8n-nodes-base/node-param-description-unencoded-angle-brackets
		description: 'Frame size as <width>x<height>',
	},
	// eslint-disable-next-line n8n-nodes-base/node-param-default-missing
	{
		displayName: 'Duration',
		name: 'duration',
		type: 'number',
	},
];
`);
	dirs.push(dir);
	const { status, output, summary } = lintSource(dir);
	expect(status).toBe(1);
	expect(summary).toMatchObject({ numPassedTests: 0, numFailedTests: 1 });
	expect(summary.legs[0].byRule).toEqual({
		'n8n-nodes-base/node-param-default-missing': 1,
		'n8n-nodes-base/node-param-description-unencoded-angle-brackets': 1,
	});
	expect(output).toMatch(/Fixture\.node\.ts/);
});

it('passes the same parameter with a real default and encoded angle brackets', () => {
	const dir = fixturePackage(
		parameter(`		displayName: 'Size',
		name: 'size',
		type: 'string',
		default: '1280x720',
		description: 'Frame size as &lt;width&gt;x&lt;height&gt;',`),
	);
	dirs.push(dir);
	const { status, summary } = lintSource(dir);
	expect(summary.legs[0]).toMatchObject({ passed: true, errors: 0 });
	expect(status).toBe(0);
});
