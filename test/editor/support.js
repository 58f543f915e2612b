'use strict';
/**
 * The editor tests' stack: the gateway simulator, the built package installed into a real n8n the way
 * n8n installs community packages (dev/n8n-host), an owner created through n8n's REST API, and
 * Debian's Chromium driven by playwright-core, signed in as that owner.
 *
 *   const stack = await startEditorStack();
 *   await stack.page.goto('/workflow/new');
 *   await stack.shot('empty-canvas');             // .cache/test-results/editor/01-empty-canvas.png
 *   const wf = await stack.rest('POST', '/rest/workflows', workflow);   // as the editor would call it
 *   await stack.stop();
 *
 * Every response for this package's icons and schemas is recorded in stack.assets ({status, url}), so a
 * test can check that none failed. Waits are for selectors, responses and events, never fixed sleeps.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const path = require('node:path');
const { chromium, selectors } = require('playwright-core');

const { N8nHost } = require('../../dev/n8n-host/host');
const { startSimulator } = require('../../dev/simulator');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const PACKAGE = 'n8n-nodes-media-gateway';
const RESULTS_DIR = path.join(REPO_ROOT, '.cache', 'test-results', 'editor');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const OWNER = {
	email: 'owner@example.com',
	firstName: 'Editor',
	lastName: 'Tester',
	password: 'Editor-Owner-Password-1',
};
const VIEWPORT = { width: 1440, height: 900 };

// n8n marks its elements with data-test-id (Playwright's default is data-testid).
selectors.setTestIdAttribute('data-test-id');

async function startEditorStack({ simulator = {} } = {}) {
	if (!fs.existsSync(CHROMIUM)) {
		throw new Error(
			`${CHROMIUM} is missing: run bash dev/n8n-host/install-browser.sh (npm test does)`,
		);
	}
	await fsp.rm(RESULTS_DIR, { recursive: true, force: true });
	await fsp.mkdir(RESULTS_DIR, { recursive: true });

	const apiKey = `editor-key-${crypto.randomBytes(8).toString('hex')}`;
	const timings = {};
	const assets = [];
	const pageErrors = [];
	let sim;
	let host;
	let tarball;
	let browser;
	let shots = 0;

	const stop = async () => {
		const results = await Promise.allSettled([
			browser ? browser.close() : undefined,
			host ? host.stop() : undefined,
			sim ? sim.close() : undefined,
			tarball ? fsp.rm(path.dirname(tarball), { recursive: true, force: true }) : undefined,
		]);
		const failed = results.find((r) => r.status === 'rejected');
		if (failed) throw failed.reason;
	};

	try {
		let t0 = Date.now();
		sim = await startSimulator({ port: 0, apiKey, videoCompleteAfterMs: 1000, ...simulator });
		tarball = await N8nHost.packPackage(REPO_ROOT);
		host = new N8nHost({ tarball });
		await host.installPackage();
		await host.start();
		timings.n8n = Date.now() - t0;

		const setup = await fetch(`${host.url}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(OWNER),
		});
		if (setup.status !== 200)
			throw new Error(`owner setup answered ${setup.status}: ${await setup.text()}`);

		t0 = Date.now();
		browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
		const context = await browser.newContext({ viewport: VIEWPORT, baseURL: host.url });
		context.setDefaultTimeout(60_000);
		const page = await context.newPage();
		page.on('response', (response) => {
			const url = response.url();
			if (url.includes(`/icons/${PACKAGE}/`) || url.includes(`/schemas/${PACKAGE}.`)) {
				assets.push({ status: response.status(), url });
			}
		});
		page.on('pageerror', (error) => pageErrors.push(error.message));

		await page.goto('/signin');
		await page.locator('input[type=email]').fill(OWNER.email);
		await page.locator('input[type=password]').fill(OWNER.password);
		await page.getByTestId('form-submit-button').click();
		await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
		// The editor binds its REST calls to this id; calls made here must carry it too.
		const browserId = await page.evaluate(() => localStorage.getItem('n8n-browserId'));
		timings.signIn = Date.now() - t0;

		/** A REST call as the signed-in editor makes it (session cookie + browser-id header). */
		const rest = async (method, urlPath, data) => {
			const response = await page.request.fetch(urlPath, {
				method,
				data,
				headers: { 'browser-id': browserId },
			});
			const text = await response.text();
			if (!response.ok())
				throw new Error(
					`${method} ${urlPath} answered ${response.status()}: ${text.slice(0, 300)}`,
				);
			return text ? JSON.parse(text).data : undefined;
		};

		/** A full-page screenshot kept with the test results, numbered in the order taken. */
		const shot = async (name) => {
			shots += 1;
			const file = path.join(RESULTS_DIR, `${String(shots).padStart(2, '0')}-${name}.png`);
			await page.screenshot({ path: file });
			return file;
		};

		return {
			host,
			sim,
			apiKey,
			browser,
			context,
			page,
			rest,
			shot,
			assets,
			pageErrors,
			timings,
			stop,
			resultsDir: RESULTS_DIR,
		};
	} catch (error) {
		await stop().catch(() => undefined);
		throw error;
	}
}

/**
 * A PNG scaled down to `width` pixels by the browser's own canvas (no image library needed), for the
 * README's small pictures.
 */
async function shrinkPng(browser, png, width) {
	const page = await browser.newPage();
	try {
		const dataUrl = await page.evaluate(
			async ({ source, targetWidth }) => {
				const image = new Image();
				image.src = source;
				await image.decode();
				const canvas = document.createElement('canvas');
				canvas.width = targetWidth;
				canvas.height = Math.round((image.naturalHeight * targetWidth) / image.naturalWidth);
				const context = canvas.getContext('2d');
				context.imageSmoothingQuality = 'high';
				context.drawImage(image, 0, 0, canvas.width, canvas.height);
				return canvas.toDataURL('image/png');
			},
			{ source: `data:image/png;base64,${png.toString('base64')}`, targetWidth: width },
		);
		return Buffer.from(dataUrl.split(',')[1], 'base64');
	} finally {
		await page.close();
	}
}

/** The built node classes, as n8n loads them (their descriptions are what the editor shows). */
function builtNode(dir, className) {
	const file = path.join(REPO_ROOT, 'dist', 'nodes', dir, `${className}.node.js`);
	return new (require(file)[className])();
}

/** Top-level properties a panel shows for these parameter values (defaults filled in). */
function visibleProperties(description, values) {
	const current = {};
	for (const property of description.properties) current[property.name] = property.default;
	Object.assign(current, values);
	const matches = (conditions) =>
		Object.entries(conditions).every(([name, allowed]) =>
			allowed.some((value) => value === current[name]),
		);
	const shown = (property) => {
		const { show, hide } = property.displayOptions ?? {};
		if (show && !matches(show)) return false;
		if (
			hide &&
			Object.entries(hide).some(([name, hidden]) => hidden.some((value) => value === current[name]))
		)
			return false;
		return true;
	};
	// A property is shown only when the ones its conditions name are shown too (n8n resolves that way).
	return description.properties.filter(shown);
}

module.exports = {
	startEditorStack,
	shrinkPng,
	builtNode,
	visibleProperties,
	PACKAGE,
	RESULTS_DIR,
	REPO_ROOT,
};
