#!/usr/bin/env node
/**
 * `npm run lint`: the ESLint leg of n8n's verification scanner (`@n8n/scan-community-package`), run offline.
 * It calls the scanner's own `analyzePackage` with the scanner's own file patterns, so the rule sets, their
 * options and `allowInlineConfig: false` (inline eslint-disable comments are ignored) are exactly what n8n
 * applies, on the two things n8n lints:
 *   source   this repository as its GitHub checkout would be: package.json and nodes/, credentials/
 *   tarball  the package as `npm pack` publishes it: every .js file and package.json
 * The tarball leg builds first (tsc + gulp, a few seconds) unless --no-build is given, so it never lints a
 * stale dist/.
 *
 * Usage: node dev/scanner-lint.mjs [--source-only | --tarball-only] [--no-build] [--json <file>] [--dir <package>]
 * (--dir lints another package folder instead of this repository; the tests use it on fixtures.)
 * Exit code 0 when both legs have zero errors. --json writes a summary in the shape the test command counts
 * (numPassedTests / numFailedTests, one per leg) plus each leg's findings by rule.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import tmp from 'tmp';
import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

/** The scanner's tarball leg, as in its analyzePackageByName (it exports no name for these patterns). */
const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name) =>
	args.includes(name) ? path.resolve(args[args.indexOf(name) + 1] ?? '') : null;
const PACKAGE_DIR =
	option('--dir') ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const jsonFile = option('--json');
const legs = flag('--tarball-only')
	? ['tarball']
	: flag('--source-only')
		? ['source']
		: ['source', 'tarball'];
// Importing the scanner creates a temporary folder; have it removed when we exit.
tmp.setGracefulCleanup();

/**
 * The scanner returns stylish text only; read its findings back per rule for the summary. Stylish prints
 * `  <line>:<col>  error  <message>  <rule-id>`, and the rule id is the last column.
 */
function findingsByRule(details = '') {
	const byRule = {};
	let errors = 0;
	let warnings = 0;
	for (const line of details.split('\n')) {
		const match = /^\s+\d+:\d+\s+(error|warning)\s+.*?\s{2,}(\S+)\s*$/.exec(line);
		if (!match) continue;
		if (match[1] === 'error') errors++;
		else warnings++;
		byRule[match[2]] = (byRule[match[2]] ?? 0) + 1;
	}
	return { errors, warnings, byRule };
}

function run(command, commandArgs, cwd) {
	return execFileSync(command, commandArgs, {
		cwd,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
}

/** `npm pack` of the built package, unpacked the way the scanner unpacks a downloaded tarball. */
function packAndUnpack() {
	const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-lint-'));
	const packed = JSON.parse(
		run('npm', ['pack', '--json', '--silent', '--pack-destination', workDir], PACKAGE_DIR),
	);
	const tarball = path.join(workDir, packed[0].filename);
	const packageDir = path.join(workDir, 'package');
	fs.mkdirSync(packageDir);
	run('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], workDir);
	return { workDir, packageDir, tarball: packed[0].filename };
}

async function lintLeg(leg) {
	const started = process.hrtime.bigint();
	let target = PACKAGE_DIR;
	let cleanup = () => {};
	let label = 'source (package.json, nodes/, credentials/)';
	if (leg === 'tarball') {
		if (!flag('--no-build')) run('npm', ['run', '--silent', 'build'], PACKAGE_DIR);
		const packed = packAndUnpack();
		target = packed.packageDir;
		label = `tarball (${packed.tarball}: **/*.js, package.json)`;
		cleanup = () => fs.rmSync(packed.workDir, { recursive: true, force: true });
	}
	try {
		const result = await analyzePackage(
			target,
			leg === 'tarball' ? TARBALL_FILE_PATTERNS : SOURCE_FILE_PATTERNS,
		);
		const seconds = Number(process.hrtime.bigint() - started) / 1e9;
		const findings = findingsByRule(result.details);
		// A failure without stylish details (e.g. the analysis itself threw) still counts as a failure.
		if (!result.passed && findings.errors === 0) findings.errors = 1;
		return {
			leg,
			label,
			passed: result.passed,
			message: result.message,
			details: result.details,
			seconds,
			...findings,
		};
	} finally {
		cleanup();
	}
}

const results = [];
for (const leg of legs) {
	const result = await lintLeg(leg);
	results.push(result);
	const rules = Object.entries(result.byRule)
		.map(([rule, count]) => `${rule} ×${count}`)
		.join(', ');
	console.log(
		`scanner lint, ${result.label}: ${result.passed ? 'passed' : 'FAILED'}, ${result.errors} errors` +
			`${rules ? ` (${rules})` : ''} in ${result.seconds.toFixed(1)} s`,
	);
	if (!result.passed) console.log(result.details ?? result.message);
}

if (jsonFile) {
	const passed = results.filter((r) => r.passed).length;
	const summary = {
		tool: '@n8n/scan-community-package analyzePackage (ESLint leg)',
		numPassedTests: passed,
		numFailedTests: results.length - passed,
		legs: results.map(({ details, ...rest }) => rest),
	};
	fs.mkdirSync(path.dirname(jsonFile), { recursive: true });
	fs.writeFileSync(jsonFile, `${JSON.stringify(summary, null, 2)}\n`);
}
process.exitCode = results.every((r) => r.passed) ? 0 : 1;
