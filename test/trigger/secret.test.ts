import {
	headerValue,
	queryValue,
	secretsMatch,
} from '../../nodes/MediaGatewayTrigger/authentication';

describe('secretsMatch', () => {
	it('matches only the exact secret', () => {
		expect(secretsMatch('s3cret-value', 's3cret-value')).toBe(true);
		expect(secretsMatch('s3cret-valuE', 's3cret-value')).toBe(false);
		expect(secretsMatch('s3cret-value ', 's3cret-value')).toBe(false);
		expect(secretsMatch('s3cret', 's3cret-value')).toBe(false);
		expect(secretsMatch('s3cret-value-and-more', 's3cret-value')).toBe(false);
		expect(secretsMatch('', 's3cret-value')).toBe(false);
	});

	it('compares Unicode secrets by their UTF-8 bytes', () => {
		expect(secretsMatch('clé-ünïcode-🔑', 'clé-ünïcode-🔑')).toBe(true);
		expect(secretsMatch('cle-unicode-🔑', 'clé-ünïcode-🔑')).toBe(false);
	});

	it('rejects anything that is not a single string', () => {
		for (const presented of [undefined, null, 1, ['s3cret'], { s: 1 }, Buffer.from('s3cret')]) {
			expect(secretsMatch(presented, 's3cret')).toBe(false);
		}
	});

	it('never matches an empty or missing expected secret', () => {
		expect(secretsMatch('', '')).toBe(false);
		expect(secretsMatch('x', undefined)).toBe(false);
		expect(secretsMatch(undefined, undefined)).toBe(false);
	});

	it('accepts presented values of any length without throwing (digests are fixed-length)', () => {
		expect(secretsMatch('x'.repeat(1_000_000), 'short')).toBe(false);
	});
});

describe('headerValue and queryValue', () => {
	it('finds headers case-insensitively, as Node.js lower-cases them', () => {
		const headers = { 'x-callback-token': 'abc', 'content-type': 'application/json' };
		expect(headerValue(headers, 'X-Callback-Token')).toBe('abc');
		expect(headerValue(headers, ' x-callback-token ')).toBe('abc');
		expect(headerValue(headers, 'X-Other')).toBeUndefined();
		expect(headerValue(undefined, 'X-Callback-Token')).toBeUndefined();
	});

	it('reads only own query parameters', () => {
		expect(queryValue({ token: 'abc' }, 'token')).toBe('abc');
		expect(queryValue({ token: ['a', 'b'] }, 'token')).toEqual(['a', 'b']);
		expect(queryValue({}, 'constructor')).toBeUndefined();
		expect(queryValue({}, '__proto__')).toBeUndefined();
		expect(queryValue(undefined, 'token')).toBeUndefined();
	});
});
