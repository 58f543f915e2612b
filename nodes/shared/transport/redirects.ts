/**
 * Redirects followed one hop at a time, so the API key only ever goes to the Base URL's origin
 * (docs/gateway-interface.md, "Authentication").
 */
import type { IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';

import { CREDENTIAL_TYPE, type GatewayCredentials } from './credentials';
import { discardBody } from './body';
import type { GatewayContext } from './request';

/** Redirects followed for one request; a CDN hand-over needs one or two. */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface RedirectPolicy {
	/**
	 * What a redirect to another origin than the Base URL's does: API calls refuse it (the key would
	 * be needed there); downloads follow it without the key (a result file handed over to a CDN).
	 */
	crossOrigin: 'refuse' | 'followWithoutKey';
}

/** A redirect that was not followed, and why. */
export class RedirectRefusedError extends Error {
	constructor(
		readonly reason: 'notHttp' | 'tooMany' | 'otherOrigin' | 'changesMethod',
		readonly status: number,
		readonly method: string,
		readonly from: URL,
		readonly to: string,
		readonly keyOrigin: string,
	) {
		super(`Redirect from ${from.origin} to ${to.slice(0, 100)} not followed (${reason})`);
	}
}

/**
 * Sends a request and follows redirects one hop at a time, deciding per hop whether the API key
 * goes along: only to the Base URL's origin (scheme, host and port), never elsewhere, however many
 * hops there are. n8n's own redirect following puts `Authorization` back on every hop unless told
 * otherwise, and even then keeps it for a subdomain or an http-to-https hop of the same host
 * (follow-redirects' rule), on every n8n line; so n8n follows nothing here. Every hop goes through
 * n8n's request helpers, so its proxy and SSRF settings apply to each one. Throws
 * `RedirectRefusedError` for a redirect it does not follow, and whatever n8n's helper throws.
 */
export async function sendFollowingRedirects(
	ctx: GatewayContext,
	credentials: GatewayCredentials,
	options: IHttpRequestOptions,
	policy: RedirectPolicy,
): Promise<IN8nHttpFullResponse> {
	const keyOrigin = new URL(credentials.baseUrl).origin;
	let url = options.url;
	for (let redirects = 0; ; redirects++) {
		// A fresh object per hop: n8n's credential authentication writes the header into the options
		// it is given, and a reused object would carry the key on to the next origin.
		const hop: IHttpRequestOptions = {
			...options,
			url,
			headers: { ...options.headers },
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
		};
		const target = new URL(url);
		const response = (
			target.origin === keyOrigin
				? await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, hop)
				: await ctx.helpers.httpRequest(hop)
		) as IN8nHttpFullResponse;
		const location = headerValue(response.headers?.location);
		if (!REDIRECT_STATUSES.has(response.statusCode) || !location) return response;
		discardBody(response.body);

		const method = (hop.method ?? 'GET').toUpperCase();
		const refuse = (reason: RedirectRefusedError['reason']) =>
			new RedirectRefusedError(reason, response.statusCode, method, target, location, keyOrigin);
		let next: URL | undefined;
		try {
			next = new URL(location, target);
		} catch {
			next = undefined;
		}
		if (!next || (next.protocol !== 'http:' && next.protocol !== 'https:')) throw refuse('notHttp');
		if (redirects >= MAX_REDIRECTS) throw refuse('tooMany');
		if (next.origin !== keyOrigin && policy.crossOrigin === 'refuse') throw refuse('otherOrigin');
		// A 301/302/303 turns a POST into a GET, which would read instead of create.
		if (method !== 'GET' && response.statusCode !== 307 && response.statusCode !== 308)
			throw refuse('changesMethod');
		url = next.toString();
	}
}

function headerValue(value: unknown): string | undefined {
	const first = Array.isArray(value) ? value[0] : value;
	return typeof first === 'string' && first.length > 0 ? first : undefined;
}
