/**
 * Issue 15 in a real n8n, on both maintained lines: the package installed the way n8n installs
 * community packages, workflows run with `n8n execute`. A fake gateway on 127.0.0.1 hands its
 * result file to a "CDN" on another origin (another port) by a 302; a third server on 127.0.0.2
 * stands for a private address.
 * - n8n 2.41.1 (.cache/n8n, Node 24) runs with SSRF protection on (127.0.0.1 allowed): the CDN never
 *   sees the key, and a result URL on 127.0.0.2 is blocked before any request reaches it.
 * - n8n 1.123.x (.cache/n8n1 on Node 22, `bash dev/n8n-host/install.sh 1.x`) has no SSRF
 *   protection: the key still stays with the gateway; the private address is reached, which the
 *   test pins as that line's known limitation.
 */
import fs from 'node:fs';
import path from 'node:path';

import { json, type Origin, redirect, startOrigin } from '../transport/origins';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { makePng } = require('../../dev/simulator');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const API_KEY = 'mgw-e2e-transport-key-3b9d11f0a4c7';
const CREDENTIAL = { id: 'mgwTransportE2e', name: 'Media Gateway (transport e2e)' };
const PNG: Buffer = (makePng as (w: number, h: number, pixel: () => number[]) => Buffer)(
	2,
	2,
	() => [9, 9, 9, 255],
);

interface HostLike {
	url: string;
	installPackage(): Promise<void>;
	importCredentials(list: unknown[]): Promise<void>;
	importWorkflows(list: unknown[]): Promise<void>;
	execute(id: string): Promise<{
		status: string;
		data: Record<
			string,
			Array<{
				items: Array<{
					json: Record<string, unknown>;
					binary?: Record<string, { mimeType?: string }>;
				}>;
				error?: { message?: string } | null;
			}>
		>;
	}>;
	start(): Promise<unknown>;
	stop(): Promise<void>;
	logs(): string;
}

function workflow(id: string, prompt: string) {
	return {
		id,
		name: `Transport e2e ${prompt}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: `${id}-t`,
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: `${id}-i`,
				name: 'Generate',
				type: 'n8n-nodes-media-gateway.mediaGatewayImage',
				typeVersion: 1,
				position: [220, 0],
				parameters: { operation: 'generate', prompt, options: { download: true } },
				credentials: { mediaGatewayApi: CREDENTIAL },
			},
		],
		connections: { Start: { main: [[{ node: 'Generate', type: 'main', index: 0 }]] } },
		pinData: {},
	};
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { N8nHost } = require('../../dev/n8n-host/host') as {
	N8nHost: (new (options: Record<string, unknown>) => HostLike) & {
		packPackage(dir: string): Promise<string>;
	};
};

// Both lines are installed by scripts/test.sh (dev/n8n-host/install.sh and install.sh 1.x).
const lines: Array<'2.x' | '1.x'> = ['2.x', '1.x'];

for (const line of lines) {
	describe(`n8n ${line} in a real instance`, () => {
		let gateway: Origin;
		let cdn: Origin;
		let privateHost: Origin;
		let host: HostLike;
		let tarball: string;

		beforeAll(async () => {
			[gateway, cdn, privateHost] = await Promise.all([
				startOrigin('127.0.0.1'),
				startOrigin('127.0.0.1'),
				startOrigin('127.0.0.2'),
			]);
			gateway.route('/imgmodel/v1/imgmodel-v3/generate', (_req, res, body) => {
				const { prompt } = JSON.parse(body) as { prompt: string };
				const url =
					prompt === 'private'
						? `${privateHost.url}/internal.png`
						: `${gateway.url}/files/result.png`;
				json(res, 200, {
					created: 1700000000,
					data: [{ url, prompt, resolution: '2x2', seed: 5, is_image_safe: true }],
				});
			});
			gateway.route('/files/result.png', (_req, res) =>
				redirect(res, `${cdn.url}/signed/result.png?sig=1`),
			);
			for (const origin of [cdn, privateHost]) {
				origin.route(origin === cdn ? '/signed/result.png' : '/internal.png', (req, res) => {
					if (req.headers.authorization)
						return json(res, 403, { error: 'Authorization not expected' });
					res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
				});
			}
			tarball = await N8nHost.packPackage(REPO_ROOT);
			host = new N8nHost({
				tarball,
				line,
				logLevel: 'info',
				// 1.123 has no SSRF protection; the setting is passed to both lines so 1.x shows it is ignored.
				env: { N8N_SSRF_PROTECTION_ENABLED: 'true', N8N_SSRF_ALLOWED_IP_RANGES: '127.0.0.1/32' },
			});
			await host.installPackage();
			await host.importCredentials([
				{ ...CREDENTIAL, type: 'mediaGatewayApi', data: { apiKey: API_KEY, baseUrl: gateway.url } },
			]);
			await host.importWorkflows([
				workflow(`mgwTrRedirect${line[0]}`, 'redirect'),
				workflow(`mgwTrPrivate${line[0]}`, 'private'),
			]);
		});
		afterAll(async () => {
			await host?.stop();
			if (tarball) fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
			await Promise.all([gateway?.close(), cdn?.close(), privateHost?.close()]);
		});

		it('a result file the gateway redirects to a CDN is downloaded; only the gateway sees the key', async () => {
			const run = await host.execute(`mgwTrRedirect${line[0]}`);
			const generate = run.data.Generate[0];
			expect(generate.error ?? null).toBeNull();
			expect(generate.items[0].binary?.data?.mimeType).toBe('image/png');
			expect(
				gateway.requests
					.filter((request) => request.path === '/files/result.png')
					.map((request) => request.authorization),
			).toEqual([`Bearer ${API_KEY}`]);
			expect(cdn.requests).toHaveLength(1);
			expect(cdn.requests[0].authorization).toBeUndefined();
			expect(host.logs()).not.toContain(API_KEY);
		});

		it("the credential's Test button does not follow a redirect: the other origin never sees the key", async () => {
			const moved = await startOrigin('127.0.0.1');
			try {
				moved.route('/v1/videos/n8n-credential-check', (_req, res) =>
					redirect(res, `${cdn.url}/v1/videos/n8n-credential-check`),
				);
				cdn.reset();
				await host.start();
				const owner = await fetch(`${host.url}/rest/owner/setup`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({
						email: 'owner@example.com',
						firstName: 'E2E',
						lastName: 'Owner',
						password: 'E2e-Owner-Password-1',
					}),
				});
				expect(owner.status).toBe(200);
				const cookie = owner.headers
					.getSetCookie()
					.map((c) => c.split(';')[0])
					.find((c) => c.startsWith('n8n-auth='));
				const response = await fetch(`${host.url}/rest/credentials/test`, {
					method: 'POST',
					headers: { 'content-type': 'application/json', cookie: cookie ?? '' },
					body: JSON.stringify({
						credentials: {
							...CREDENTIAL,
							type: 'mediaGatewayApi',
							data: { apiKey: API_KEY, baseUrl: moved.url },
						},
					}),
				});
				const text = await response.text();
				const result = (JSON.parse(text) as { data: { status: string; message: string } }).data;
				if (line === '2.x') {
					expect(result.status).toBe('Error');
					expect(result.message).toBe(
						'The gateway answered the check with a redirect (HTTP 302), which the test does not follow, so the key goes nowhere else. If the gateway has moved (e.g. to https://), enter its new address as the Base URL.',
					);
				} else {
					// n8n 1.x ignores ignoreHttpStatusErrors.except (every status counts as an answer), so its
					// Test button reports any answer as OK, a 401 included; it still does not follow the redirect.
					expect(result.status).toBe('OK');
				}
				expect(moved.requests.map((request) => request.authorization)).toEqual([
					`Bearer ${API_KEY}`,
				]);
				expect(cdn.requests).toEqual([]);
				expect(text).not.toContain(API_KEY);
			} finally {
				await moved.close();
			}
		});

		if (line === '2.x') {
			it('with N8N_SSRF_PROTECTION_ENABLED, a result URL on a private address is blocked before any request', async () => {
				const run = await host.execute(`mgwTrPrivate${line[0]}`);
				expect(run.data.Generate[0].error?.message).toBe(
					"n8n's SSRF protection blocked the request to 127.0.0.2",
				);
				expect(privateHost.requests).toEqual([]);
			});
		} else {
			it("has no SSRF protection: a result URL on a private address is fetched (this line's limitation)", async () => {
				const run = await host.execute(`mgwTrPrivate${line[0]}`);
				expect(run.data.Generate[0].error ?? null).toBeNull();
				expect(privateHost.requests).toHaveLength(1);
				expect(privateHost.requests[0].authorization).toBeUndefined();
			});
		}
	});
}
