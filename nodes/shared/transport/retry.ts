/**
 * How the transport retries (docs/gateway-interface.md, "Errors": 429 and 503 mean "not processed").
 * The policy is passed in by whoever sends a request; `DEFAULT_RETRY_POLICY` is what n8n runs with.
 */

export interface RetryPolicy {
	/** Total attempts, the first one included. */
	readonly maxAttempts: number;
	readonly baseDelayMs: number;
	readonly maxDelayMs: number;
	/** The longest Retry-After we are willing to sleep through; a longer one fails fast with advice. */
	readonly maxRetryAfterMs: number;
	/** Idle limit and total limit of one attempt, answer body included. */
	readonly requestTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
	maxAttempts: 4,
	baseDelayMs: 500,
	maxDelayMs: 8_000,
	maxRetryAfterMs: 30_000,
	requestTimeoutMs: 60_000,
});

/** Exponential backoff with full jitter, so parallel items do not retry in lock-step. */
export function backoffMs(attempt: number, policy: RetryPolicy = DEFAULT_RETRY_POLICY): number {
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
	return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

/**
 * Added to a Retry-After wait, never taken from it: items told to wait the same time spread over
 * up to a fifth of it (at least 100 ms, at most 2 s) instead of returning at the same instant.
 */
export function retryAfterJitterMs(retryAfter: number): number {
	return Math.round(Math.random() * Math.min(2_000, Math.max(100, retryAfter / 5)));
}

const DAY = '(Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** RFC 9110 5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must accept. */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

function utc(
	year: number,
	month: string,
	day: number,
	hours: number,
	minutes: number,
	seconds: number,
): number | undefined {
	if (day < 1 || day > 31 || hours > 23 || minutes > 59 || seconds > 60) return undefined;
	const time = Date.UTC(year, MONTHS.indexOf(month), day, hours, minutes, seconds);
	// Date.UTC rolls 31 Feb over into March; such a date is not a date.
	return new Date(time).getUTCDate() === day ? time : undefined;
}

/** An HTTP-date (RFC 9110 5.6.7) as epoch milliseconds, or undefined when the text is not one. */
export function parseHttpDate(text: string): number | undefined {
	let match = IMF_FIXDATE.exec(text);
	if (match)
		return utc(
			Number(match[4]),
			match[3],
			Number(match[2]),
			Number(match[5]),
			Number(match[6]),
			Number(match[7]),
		);
	match = RFC850_DATE.exec(text);
	if (match) {
		// Two-digit years: RFC 9110 says a date more than 50 years ahead is in the past century.
		const nowYear = new Date().getUTCFullYear();
		let year = Math.floor(nowYear / 100) * 100 + Number(match[4]);
		if (year > nowYear + 50) year -= 100;
		return utc(
			year,
			match[3],
			Number(match[2]),
			Number(match[5]),
			Number(match[6]),
			Number(match[7]),
		);
	}
	match = ASCTIME_DATE.exec(text);
	if (match)
		return utc(
			Number(match[7]),
			match[2],
			Number(match[3].trim()),
			Number(match[4]),
			Number(match[5]),
			Number(match[6]),
		);
	return undefined;
}

/**
 * Retry-After as RFC 9110 10.2.3 defines it: delay-seconds (digits only) or an HTTP-date. Anything
 * else (`-1`, `+5`, `1.5`, `soon`) is ignored, so the normal backoff applies instead of a date that
 * a lenient parser would read into the past.
 */
export function retryAfterMs(header: unknown): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+$/.test(text)) return Number(text) * 1000;
	const date = parseHttpDate(text);
	return date === undefined ? undefined : Math.max(0, date - Date.now());
}
