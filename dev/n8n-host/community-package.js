'use strict';
/**
 * A community package packed with npm and installed into an n8n user folder exactly as n8n's own
 * installer does it; then what n8n's loader said about it, and why it failed when it did.
 */
const { spawnSync, execFile } = require('node:child_process');
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { promisify } = require('node:util');

const execFileAsync = promisify(execFile);

const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._-]*\/)?n8n-nodes-[a-z0-9._-]+$/;

/**
 * @typedef {object} InstalledPackage
 * @property {string} name
 * @property {string} version
 * @property {string} dir where it is installed
 * @property {number} nodes how many nodes its package.json lists
 * @property {number} credentials how many credentials its package.json lists
 */

/**
 * `npm pack` of an already-built package (never builds: dist/ must exist). Throws when a dist file that
 * package.json's `n8n` section lists is not in the tarball, since n8n would then drop the whole package.
 * @returns {Promise<string>} absolute path of the tarball, in a fresh temp dir
 */
async function packPackage(repoDir) {
	const dir = path.resolve(repoDir);
	if (!fs.existsSync(path.join(dir, 'dist'))) {
		throw new Error(`${dir}/dist does not exist: build the package before packing it`);
	}
	const dest = await fsp.mkdtemp(path.join(os.tmpdir(), 'n8n-host-pack-'));
	try {
		// --ignore-scripts: packing must not build (or run anything else).
		const { stdout } = await execFileAsync(
			'npm',
			['pack', '--ignore-scripts', '--json', '--pack-destination', dest],
			{
				cwd: dir,
				maxBuffer: 64 * 1024 * 1024,
			},
		);
		const [info] = JSON.parse(stdout);
		const packed = new Set(info.files.map((f) => f.path));
		const pkg = JSON.parse(await fsp.readFile(path.join(dir, 'package.json'), 'utf8'));
		const listed = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])];
		const missing = listed.filter((file) => !packed.has(file.replace(/^\.\//, '')));
		if (missing.length > 0) {
			throw new Error(
				`the packed ${info.name} lacks files its package.json lists: ${missing.join(', ')}`,
			);
		}
		return path.join(dest, info.filename);
	} catch (error) {
		await fsp.rm(dest, { recursive: true, force: true });
		throw error;
	}
}

/**
 * Untars the tarball into <n8nFolder>/nodes/node_modules/<name>, strips devDependencies, peerDependencies
 * and optionalDependencies, runs npm install the way n8n's installer does, and records the package in the
 * nodes folder's package.json ledger (n8n's CommunityPackagesService.downloadPackage).
 * @param {object} options
 * @param {string} options.tarball
 * @param {string} options.n8nFolder the instance's `.n8n` folder
 * @param {Record<string, string>} options.env environment of the npm install (the host's)
 * @returns {Promise<InstalledPackage>}
 */
async function installPackage({ tarball, n8nFolder, env }) {
	const { stdout } = await execFileAsync('tar', ['-xzOf', tarball, 'package/package.json'], {
		maxBuffer: 16 * 1024 * 1024,
	});
	const manifest = JSON.parse(stdout);
	if (!PACKAGE_NAME.test(manifest.name)) {
		// n8n would skip such a folder without a word.
		throw new Error(
			`"${manifest.name}" is not a community package name (n8n-nodes-* or @scope/n8n-nodes-*)`,
		);
	}
	const nodesDir = path.join(n8nFolder, 'nodes');
	const dir = path.join(nodesDir, 'node_modules', manifest.name);
	await fsp.rm(dir, { recursive: true, force: true });
	await fsp.mkdir(dir, { recursive: true });
	await execFileAsync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);

	const { devDependencies, peerDependencies, optionalDependencies, ...installed } = manifest;
	await fsp.writeFile(path.join(dir, 'package.json'), JSON.stringify(installed, null, 2), 'utf8');
	// Same flags as n8n; the registry is whatever npm is configured with (n8n passes its configured one).
	await execFileAsync(
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
		],
		{ cwd: dir, env, maxBuffer: 64 * 1024 * 1024 },
	);

	const ledgerPath = path.join(nodesDir, 'package.json');
	let ledger = { name: 'installed-nodes', private: true, dependencies: {} };
	try {
		const existing = JSON.parse(await fsp.readFile(ledgerPath, 'utf8'));
		if (existing && typeof existing.dependencies === 'object') ledger = existing;
	} catch {
		// absent or unusable: n8n rebuilds it the same way
	}
	ledger.dependencies[manifest.name] = manifest.version;
	await fsp.writeFile(ledgerPath, JSON.stringify(ledger, null, 2), 'utf8');

	return {
		name: manifest.name,
		version: manifest.version,
		dir,
		nodes: manifest.n8n?.nodes?.length ?? 0,
		credentials: manifest.n8n?.credentials?.length ?? 0,
	};
}

/**
 * What n8n's loader said about the installed package: failures are logged at error/warn level, success
 * only at debug level as `Loaded all credentials and nodes from <name> {credentials, nodes}`.
 * @param {import('./log').LogEntry[]} entries the server's log so far
 * @param {InstalledPackage|undefined} pkg
 * @param {{final: boolean, logLevel: string}} options final: the server is up, so success must be logged by now
 * @returns {string|null} the problem, or null
 */
function packageLoadProblem(entries, pkg, { final, logLevel }) {
	if (!pkg) return null;
	const { name } = pkg;
	const failure = entries.find(
		(e) =>
			(e.level === 'error' || e.level === 'warn') &&
			(e.message.includes(`package "${name}"`) || e.message.includes(`directory "${name}"`)),
	);
	if (failure) {
		const cause = failure.metadata?.error?.message ?? failure.metadata?.error ?? '';
		return `package ${name} failed to load: ${failure.message} ${typeof cause === 'string' ? cause : JSON.stringify(cause)}`;
	}
	if (!final || logLevel !== 'debug') return null;
	const loaded = entries.find((e) => e.message === `Loaded all credentials and nodes from ${name}`);
	if (!loaded) return `n8n never logged "Loaded all credentials and nodes from ${name}"`;
	const { nodes = 0, credentials = 0 } = loaded.metadata ?? {};
	if (nodes < pkg.nodes || credentials < pkg.credentials) {
		return `n8n loaded ${nodes} nodes and ${credentials} credentials from ${name}; its package.json lists ${pkg.nodes} and ${pkg.credentials}`;
	}
	return null;
}

/**
 * n8n's loader often hides the cause ("Error that was not an instance of Error was thrown"): load each
 * listed file the way it does (class named after the file, constructed with n8n's modules resolvable)
 * and say what is wrong.
 * @param {InstalledPackage} pkg
 * @param {{paths: import('./lines').LinePaths, env: Record<string, string>}} options
 * @returns {Promise<string>} the findings, unredacted ('' when there are none)
 */
async function diagnosePackage(pkg, { paths, env }) {
	const script = `
		const path = require('path'); const [dir, files] = [process.argv[1], JSON.parse(process.argv[2])];
		for (const file of files) {
			const className = path.parse(file).name.split('.')[0];
			try {
				const exported = require(path.resolve(dir, file));
				if (typeof exported[className] !== 'function') {
					console.log(file + ' exports [' + Object.keys(exported).join(', ') + '], n8n needs a class named ' + className);
					continue;
				}
				const instance = new exported[className]();
				if (file.includes('.node.') && !instance.description && !instance.nodeVersions) console.log(file + ': no description');
			} catch (error) { console.log(file + ': ' + (error && error.stack ? error.stack.split('\\n').slice(0, 3).join(' | ') : String(error))); }
		}`;
	const manifest = JSON.parse(await fsp.readFile(path.join(pkg.dir, 'package.json'), 'utf8'));
	const files = [...(manifest.n8n?.nodes ?? []), ...(manifest.n8n?.credentials ?? [])];
	const result = spawnSync(paths.NODE_BIN, ['-e', script, pkg.dir, JSON.stringify(files)], {
		encoding: 'utf8',
		timeout: 30000,
		env: { ...env, NODE_PATH: paths.N8N_MODULES },
	});
	return `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
}

module.exports = { packPackage, installPackage, packageLoadProblem, diagnosePackage };
