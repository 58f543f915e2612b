import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export const CREDENTIAL_TYPE = 'mediaGatewayApi';

export interface GatewayCredentials {
	apiKey: string;
	/** Normalised: no trailing slash, so paths can be appended as docs/gateway-interface.md writes them ("Authentication"). */
	baseUrl: string;
}

/** Trims the Base URL, drops trailing slashes and checks the scheme; undefined when unusable. */
export function normaliseBaseUrl(value: unknown): string | undefined {
	if (typeof value !== 'string') return undefined;
	const trimmed = value.trim().replace(/\/+$/, '');
	let parsed: URL;
	try {
		parsed = new URL(trimmed);
	} catch {
		return undefined;
	}
	if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
	if (parsed.search || parsed.hash) return undefined;
	return trimmed;
}

export async function readGatewayCredentials(
	ctx: IExecuteFunctions | IWebhookFunctions,
	itemIndex: number,
): Promise<GatewayCredentials> {
	const data = (await (
		ctx.getCredentials as (
			type: string,
			itemIndex?: number,
		) => Promise<ICredentialDataDecryptedObject>
	)(CREDENTIAL_TYPE, itemIndex)) as ICredentialDataDecryptedObject;
	const apiKey = typeof data.apiKey === 'string' ? data.apiKey.trim() : '';
	if (!apiKey) {
		throw new NodeOperationError(ctx.getNode(), 'The Media Gateway API credential has no API Key', {
			itemIndex,
			description: 'Open the credential and paste the API key the gateway issued to you.',
		});
	}
	const baseUrl = normaliseBaseUrl(data.baseUrl);
	if (!baseUrl) {
		throw new NodeOperationError(
			ctx.getNode(),
			'The Base URL in the Media Gateway API credential must start with http:// or https://',
			{
				itemIndex,
				description:
					'Open the credential and enter the gateway root address, e.g. https://gateway.example.com (no query string).',
			},
		);
	}
	return { apiKey, baseUrl };
}
