/**
 * The release workflow cannot run here (it needs GitHub's OIDC and npm), so its shape is checked: valid
 * YAML, a version-tag trigger, the full test command before anything is published, and a publish job
 * with provenance whose OIDC permission is granted to that job only.
 */
const fs = require('node:fs');
const path = require('node:path');
const { parse } = require('yaml');

const REPO = path.resolve(__dirname, '..', '..');
const FILE = path.join(REPO, '.github', 'workflows', 'release.yml');

/** GitHub's tag filter glob (`*` is any run of characters but `/`) as a RegExp. */
const globToRegExp = (glob) =>
	new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
const runs = (job) =>
	job.steps
		.filter((s) => typeof s.run === 'string')
		.map((s) => s.run)
		.join('\n');
const uses = (job) => job.steps.filter((s) => s.uses).map((s) => s.uses.split('@')[0]);

let workflow;
beforeAll(() => {
	workflow = parse(fs.readFileSync(FILE, 'utf8'), { strict: true, uniqueKeys: true });
});

it('is valid YAML with a name and two jobs', () => {
	expect(workflow.name).toBeTruthy();
	expect(Object.keys(workflow.jobs).sort()).toEqual(['publish', 'test']);
	for (const job of Object.values(workflow.jobs)) {
		expect(job['runs-on']).toBe('ubuntu-latest');
		expect(Array.isArray(job.steps)).toBe(true);
		for (const step of job.steps) expect(Boolean(step.run) !== Boolean(step.uses)).toBe(true);
	}
});

it('runs on version tags only', () => {
	expect(Object.keys(workflow.on)).toEqual(['push']);
	expect(workflow.on.push.branches).toBeUndefined();
	const patterns = workflow.on.push.tags.map(globToRegExp);
	const matches = (tag) => patterns.some((p) => p.test(tag));
	expect(matches('v0.1.0')).toBe(true);
	expect(matches('v1.23.4')).toBe(true);
	expect(matches('main')).toBe(false);
	expect(matches('latest')).toBe(false);
});

it("runs the project's full test command, after checking the tag against package.json", () => {
	const test = workflow.jobs.test;
	expect(uses(test)).toContain('actions/checkout');
	expect(runs(test)).toMatch(/\$GITHUB_REF_NAME/);
	expect(runs(test)).toMatch(/require\('\.\/package\.json'\)\.version/);
	expect(test.steps.at(-1).run.trim()).toBe('npm test');
	expect(test['timeout-minutes']).toBeLessThanOrEqual(90);
	// npm test is the scanner lint, the unit tests and the n8n 1.x and 2.x end-to-end runs.
	const testScript = fs.readFileSync(path.join(REPO, 'scripts', 'test.sh'), 'utf8');
	expect(require(path.join(REPO, 'package.json')).scripts.test).toBe('bash scripts/test.sh');
	expect(testScript).toMatch(/npm run --silent lint/);
	expect(testScript).toMatch(/jest\.e2e\.config\.js/);
	expect(testScript).toMatch(/jest\.e2e\.n8n1\.config\.js/);
});

it('publishes with provenance from its own job, after the tests, holding the OIDC permission alone', () => {
	expect(workflow.permissions).toEqual({ contents: 'read' });
	expect(workflow.jobs.test.permissions).toBeUndefined();
	const publish = workflow.jobs.publish;
	expect(publish.needs).toBe('test');
	expect(publish.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
	expect(uses(publish)).toEqual(['actions/checkout', 'actions/setup-node']);
	const setupNode = publish.steps.find((s) => s.uses?.startsWith('actions/setup-node'));
	expect(setupNode.with['registry-url']).toBe('https://registry.npmjs.org');
	expect(Number.parseInt(String(setupNode.with['node-version']), 10)).toBeGreaterThanOrEqual(22);
	const commands = runs(publish)
		.split('\n')
		.map((line) => line.trim());
	const order = [
		'npm ci --ignore-scripts',
		'npm run build',
		'npm run lint -- --no-build',
		'npm publish --provenance --access public',
	];
	const positions = order.map((command) => commands.indexOf(command));
	expect(positions).not.toContain(-1);
	expect([...positions].sort((a, b) => a - b)).toEqual(positions);
	expect(publish.steps.at(-1).env.NODE_AUTH_TOKEN).toBe('${{ secrets.NPM_TOKEN }}');
});
