/**
 * One callback, from the request to the answer: authentication, content type, parsing, filters, the
 * video confirmation, the duplicate check, and the at-least-once answer. What a callback looks like,
 * and how the gateway retries it, is in docs/gateway-interface.md (section Callbacks).
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { isJsonContentType, parseCallback } from '../shared/gateway/callbacks';
import { CREDENTIAL_TYPE } from '../shared/transport/credentials';
import { isFinalState } from '../shared/gateway/status';
import { answerOnceStarted } from './acknowledgement';
import { authenticationFailure, headerValue } from './authentication';
import { confirmVideoCallback } from './confirmation';
import type { TriggerItem } from './confirmation';
import { checkDuplicate } from './duplicates';
import { filterOut } from './filters';

/** The body every callback that passes authentication and validation gets, with status 200. */
const RECEIVED = { received: true } as const;

export async function receiveCallback(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const res = this.getResponseObject();
	// Refusals are answered here and return noWebhookResponse, so n8n starts no execution.
	const refuse = (code: 400 | 401 | 403 | 409 | 415 | 503, error: string): IWebhookResponseData => {
		res.status(code).json({ error });
		return { noWebhookResponse: true };
	};

	// Authentication comes first: an unauthenticated caller learns nothing about the body rules.
	const unauthenticated = authenticationFailure(this);
	if (unauthenticated) return refuse(401, unauthenticated);

	// Callbacks are JSON; n8n would turn a form-encoded body into fields that pass as one.
	if (
		!isJsonContentType(headerValue(this.getHeaderData() as Record<string, unknown>, 'content-type'))
	) {
		return refuse(415, 'unsupported content type: callbacks are sent as application/json');
	}

	const parsed = parseCallback(this.getBodyData() as unknown);
	if (!parsed.ok) return refuse(400, parsed.reason);
	const callback = parsed.item;

	const ignored = filterOut(this, callback);
	if (ignored) return { webhookResponse: { ...RECEIVED, ignored } };

	const confirm =
		callback.kind === 'video' &&
		isFinalState(callback.state) &&
		(this.getNodeParameter('confirmVideoCallbacks', true) as boolean) &&
		Boolean(this.getNode().credentials?.[CREDENTIAL_TYPE]);
	const start = async (): Promise<{ item: TriggerItem } | { refusal: IWebhookResponseData }> => {
		if (!confirm) return { item: { ...callback, confirmed: false, video: null } };
		const confirmation = await confirmVideoCallback(this, callback);
		return confirmation.ok
			? { item: confirmation.item }
			: { refusal: refuse(confirmation.code, confirmation.reason) };
	};

	if (!(this.getNodeParameter('ignoreDuplicates', true) as boolean)) {
		const outcome = await start();
		if ('refusal' in outcome) return outcome.refusal;
		return {
			workflowData: [[{ json: outcome.item as unknown as IDataObject }]],
			webhookResponse: { ...RECEIVED },
		};
	}

	const check = checkDuplicate(this, callback);
	if (check.outcome === 'duplicate')
		return { webhookResponse: { ...RECEIVED, ignored: 'duplicate' } };
	if (check.outcome === 'inFlight')
		return refuse(409, 'this callback is being processed already; retry later');
	const { claim, remember } = check;
	// Whatever happens next (confirmation refused, answered, failed to start, caller gone, even
	// during the confirmation), the claim ends with the request.
	let callerGone = false;
	res.once('close', () => {
		callerGone = true;
		claim.release();
	});

	// start() does not throw (the confirmation turns every failure into an answer); should it ever,
	// the claim must not outlive the request, or every retry of this callback would get 409.
	const outcome = await start().catch(() => ({
		refusal: refuse(503, 'the callback could not be checked; retry later'),
	}));
	if ('refusal' in outcome) {
		claim.release();
		return outcome.refusal;
	}
	// The gateway stopped waiting during the confirmation: it counts this delivery as failed and
	// sends it again, and that retry (already free to claim the key) is the one to start it.
	if (callerGone) return { noWebhookResponse: true };
	// The execution exists when n8n reads the answer: from then on a repeat of this callback is a duplicate.
	return answerOnceStarted(
		[[{ json: outcome.item as unknown as IDataObject }]],
		{ ...RECEIVED },
		remember,
	);
}
