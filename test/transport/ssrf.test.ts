/**
 * n8n 2.x's SSRF protection applies to every download hop and to the gateway calls, because all of
 * them go through n8n's request helpers. Run through n8n-core's real helpers with the setting on
 * (read from the environment when n8n's DI container first builds its config, as in a real n8n):
 * 127.0.0.1 (the gateway) is allowed, every other loopback address stays blocked.
 * n8n 1.x has no SSRF protection at all (see README, Downloads).
 */
import type { INodeParameters } from 'n8n-workflow';

import { MediaGatewayApi } from '../../credentials/MediaGatewayApi.credentials';
import { MediaGatewayImage } from '../../nodes/MediaGatewayImage/MediaGatewayImage.node';
import { runNode } from '../../dev/harness/runNode';
import { json, type Origin, redirect, startOrigin } from './origins';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { makePng } = require('../../dev/simulator');

process.env.N8N_SSRF_PROTECTION_ENABLED = 'true';
process.env.N8N_SSRF_ALLOWED_IP_RANGES = '127.0.0.1/32';

const API_KEY = 'mgw-ssrf-key-77aa01c3e9';
const PNG: Buffer = (makePng as (w: number, h: number, pixel: () => number[]) => Buffer)(
	2,
	2,
	() => [1, 2, 3, 255],
);
const GENERATE = '/imgmodel/v1/imgmodel-v3/generate';

let gateway: Origin;
let privateHost: Origin;

beforeAll(async () => {
	[gateway, privateHost] = await Promise.all([startOrigin('127.0.0.1'), startOrigin('127.0.0.2')]);
});
afterAll(async () => {
	await Promise.all([gateway.close(), privateHost.close()]);
});
beforeEach(() => {
	gateway.reset();
	privateHost.reset();
});

async function runImage(baseUrl: string, parameters: INodeParameters = {}) {
	return await runNode({
		nodeType: new MediaGatewayImage(),
		credentialTypes: [new MediaGatewayApi()],
		credentials: { mediaGatewayApi: { apiKey: API_KEY, baseUrl } },
		parameters: { operation: 'generate', prompt: 'x', ...parameters },
	});
}

function generateAnswers(url: string): void {
	gateway.route(GENERATE, (_req, res) => json(res, 200, { created: 1, data: [{ url, seed: 3 }] }));
}

it('downloads from an allowed address work (the control case)', async () => {
	generateAnswers(`${gateway.url}/files/ok.png`);
	gateway.route('/files/ok.png', (_req, res) => {
		res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
	});
	const result = await runImage(gateway.url);
	expect(result.error).toBeUndefined();
	expect(result.items[0].binary?.data.mimeType).toBe('image/png');
});

it('a result URL on a blocked address is refused before any request reaches it', async () => {
	generateAnswers(`${privateHost.url}/internal.png`);
	const result = await runImage(gateway.url);
	expect(result.error?.message).toBe("n8n's SSRF protection blocked the request to 127.0.0.2");
	expect(result.error?.description).toContain('N8N_SSRF_ALLOWED_HOSTNAMES');
	expect(privateHost.requests).toEqual([]);
});

it('a redirect from the gateway to a blocked address is refused at that hop', async () => {
	generateAnswers(`${gateway.url}/files/r.png`);
	gateway.route('/files/r.png', (_req, res) => redirect(res, `${privateHost.url}/metadata`));
	const result = await runImage(gateway.url);
	expect(result.error?.message).toBe("n8n's SSRF protection blocked the request to 127.0.0.2");
	expect(gateway.requests.map((request) => request.path)).toEqual([GENERATE, '/files/r.png']);
	expect(privateHost.requests).toEqual([]);
});

it('a Base URL on a blocked address fails with the same advice, and nothing is sent', async () => {
	const result = await runImage(privateHost.url);
	expect(result.error?.message).toBe("n8n's SSRF protection blocked the request to 127.0.0.2");
	expect(privateHost.requests).toEqual([]);
});
