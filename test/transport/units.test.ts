/**
 * The pure parts of the transport and download code, checked on their own: RFC 9110 Retry-After,
 * file kinds and names, what is stripped from the gateway's answers, the credential's http:// notice.
 */
import { NodeHelpers } from 'n8n-workflow';

import { MediaGatewayApi } from '../../credentials/MediaGatewayApi.credentials';
import { detectFileKind, safeFileName } from '../../nodes/shared/transport/download';
import { DOWNLOAD_LIMIT_DEFAULTS, downloadOptions } from '../../nodes/shared/parameters/options';
import { sanitiseAnswer } from '../../nodes/shared/transport/body';
import {
	parseHttpDate,
	retryAfterJitterMs,
	retryAfterMs,
} from '../../nodes/shared/transport/retry';

describe('Retry-After (RFC 9110 10.2.3)', () => {
	it.each([
		['0', 0],
		['5', 5000],
		['  120 ', 120_000],
	])('delay-seconds %j → %d ms', (header, ms) => {
		expect(retryAfterMs(header)).toBe(ms);
	});

	it.each([
		'-1',
		'+5',
		'1.5',
		'5s',
		'0x10',
		'1e3',
		'soon',
		'',
		'2026-11-23T10:00:00Z',
		'Mon, 23 Nov 2026 10:00:00 +0000',
		'-1, 5',
	])('%j is not a Retry-After value: ignored, so the normal backoff applies', (header) => {
		expect(retryAfterMs(header)).toBeUndefined();
	});

	it('reads the three HTTP-date forms a recipient must accept', () => {
		const expected = Date.UTC(1994, 10, 6, 8, 49, 37);
		expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(expected);
		expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(expected);
		expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(expected);
		expect(parseHttpDate('Sun, 31 Feb 1994 08:49:37 GMT')).toBeUndefined();
		expect(parseHttpDate('Sun, 06 Nov 1994 25:49:37 GMT')).toBeUndefined();
	});

	it('a date in the future is a wait until then; one in the past is no wait', () => {
		const inTwoMinutes = new Date(Math.ceil((Date.now() + 120_000) / 1000) * 1000).toUTCString();
		const wait = retryAfterMs(inTwoMinutes)!;
		expect(wait).toBeGreaterThan(100_000);
		expect(wait).toBeLessThanOrEqual(121_000);
		expect(retryAfterMs('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(0);
	});

	it('jitter is added, never taken away, and bounded', () => {
		for (const retryAfter of [0, 1000, 5000, 60_000]) {
			for (let i = 0; i < 200; i++) {
				const jitter = retryAfterJitterMs(retryAfter);
				expect(jitter).toBeGreaterThanOrEqual(0);
				expect(jitter).toBeLessThanOrEqual(Math.min(2000, Math.max(100, retryAfter / 5)));
			}
		}
		// Spread out, not a constant.
		expect(
			new Set(Array.from({ length: 50 }, () => retryAfterJitterMs(5000))).size,
		).toBeGreaterThan(10);
	});
});

describe('file kinds and names', () => {
	it('recognises files by their first bytes', () => {
		const ftyp = (brand: string) =>
			Buffer.concat([
				Buffer.from([0, 0, 0, 24]),
				Buffer.from(`ftyp${brand}`, 'latin1'),
				Buffer.alloc(4),
			]);
		expect(
			detectFileKind(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]))
				?.mimeType,
		).toBe('image/png');
		expect(detectFileKind(Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'))?.mimeType).toBe(
			'image/webp',
		);
		expect(detectFileKind(ftyp('isom'))?.mimeType).toBe('video/mp4');
		expect(detectFileKind(ftyp('avif'))?.mimeType).toBe('image/avif');
		expect(detectFileKind(ftyp('qt  '))?.mimeType).toBe('video/quicktime');
		expect(detectFileKind(Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 1, 2]))?.mimeType).toBe(
			'video/webm',
		);
		expect(detectFileKind(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg">'))).toBeUndefined();
		expect(detectFileKind(Buffer.from('<?xml version="1.0"?><svg/>'))).toBeUndefined();
		expect(detectFileKind(Buffer.alloc(0))).toBeUndefined();
	});

	it.each([
		['https://cdn.example.com/a/b/result.png?sig=1', 'result.png'],
		['https://cdn.example.com/../../etc/passwd', 'passwd.png'],
		['https://cdn.example.com/x/..%2F..%2F.bashrc', 'bashrc.png'],
		['https://cdn.example.com/evil.html', 'evil.png'],
		['https://cdn.example.com/name%00with%0Anul.png', 'name_with_nul.png'],
		['https://cdn.example.com/', 'image-42.png'],
		['https://cdn.example.com/%2e%2e', 'image-42.png'],
		[`https://cdn.example.com/${'a'.repeat(300)}.png`, `${'a'.repeat(100)}.png`],
		['https://cdn.example.com/files/vid_EZZm9fi9K1D_.png', 'vid_EZZm9fi9K1D_.png'],
		['https://cdn.example.com/files/vid-x-.png', 'vid-x-.png'],
		['https://cdn.example.com/files/name..png', 'name.png'],
	])('%s → %s', (url, name) => {
		expect(safeFileName(url, 'image-42', 'png')).toBe(name);
	});

	it('a fallback built from a hostile task id is cleaned too', () => {
		expect(safeFileName('https://cdn.example.com/', 'video-../../x', 'mp4')).toBe(
			'video-._._x.mp4',
		);
	});
});

describe('what leaves the gateway answer', () => {
	it('drops callback addresses at any depth and redacts the key and n8n resume signatures', () => {
		const key = 'sk-live-abcdef0123456789';
		const answer = {
			id: 't1',
			notifyHook: 'https://n8n.example.com/webhook-waiting/9?signature=abc',
			nested: [
				{
					notify_hook: 'x',
					callback_url: 'y',
					callbackUrl: 'z',
					webhookUrl: 'w',
					keep: `token ${key}`,
				},
			],
			text: 'call https://n8n.example.com/webhook-waiting/9?signature=abc when done',
			header: 'Authorization: Bearer other-token-1234',
		};
		expect(sanitiseAnswer(answer, [key])).toEqual({
			id: 't1',
			nested: [{ keep: 'token ***' }],
			text: 'call https://n8n.example.com/webhook-waiting/9?signature=*** when done',
			header: 'Authorization: Bearer ***',
		});
	});
});

describe('credential: http:// Base URL warning', () => {
	const credential = new MediaGatewayApi();
	const notice = credential.properties.find((property) => property.type === 'notice')!;
	const shown = (baseUrl: string) =>
		NodeHelpers.displayParameter({ apiKey: 'k', baseUrl }, notice, null, null);

	it('shows for http://, in any letter case and with leading spaces', () => {
		expect(shown('http://gateway.example.com')).toBe(true);
		expect(shown('HTTP://gateway.example.com')).toBe(true);
		expect(shown('  http://10.0.0.5:8080/')).toBe(true);
	});

	it('stays hidden for https:// and while the field is empty', () => {
		expect(shown('https://gateway.example.com')).toBe(false);
		expect(shown('')).toBe(false);
		expect(shown('https://http.example.com/http://')).toBe(false);
	});
});

describe('download limit options', () => {
	it('show the same defaults the code falls back to, for images and for videos', () => {
		for (const noun of ['Image', 'Video'] as const) {
			const properties = downloadOptions(noun, noun === 'Image');
			const byName = Object.fromEntries(
				properties.map((property) => [property.name, property.default]),
			);
			expect(byName.maxDownloadSizeMb).toBe(DOWNLOAD_LIMIT_DEFAULTS[noun].maxMb);
			expect(byName.downloadTimeLimitSeconds).toBe(DOWNLOAD_LIMIT_DEFAULTS[noun].timeSeconds);
			expect(byName.download).toBe(noun === 'Image');
		}
	});
});
