import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/** `http://` in any letter case, after optional spaces: the Base URL as typed, before it is trimmed. */
const HTTP_SCHEME_PATTERN = '^\\s*[Hh][Tt][Tt][Pp]://';

export class MediaGatewayApi implements ICredentialType {
	name = 'mediaGatewayApi';

	displayName = 'Media Gateway API';

	icon: Icon = { light: 'file:mediaGateway.svg', dark: 'file:mediaGateway.dark.svg' };

	documentationUrl = 'https://github.com/media-gateway/n8n-nodes-media-gateway#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'The key the gateway issued to you. It is sent as "Authorization: Bearer <key>".',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://gateway.example.com',
			description:
				'The root address of the gateway, starting with http:// or https://, without /v1 or /imgmodel. A trailing slash is fine.',
		},
		{
			displayName:
				'This Base URL uses http://: the API key and every prompt and result travel unencrypted, readable by anyone on the network path. Use https:// unless the gateway runs on this machine or a private network you trust.',
			name: 'insecureBaseUrlNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { baseUrl: [{ _cnd: { regex: HTTP_SCHEME_PATTERN } }] } },
		},
	];

	// Generic authentication lets n8n add the header itself, so the key never passes through node code.
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};

	/**
	 * Reading a task costs nothing and creates nothing. The id is one no gateway has, so a valid
	 * key gets "task not found" (404, which counts as success here) and a wrong key gets 401/403.
	 * Server errors still fail the test, so a gateway that is down is not reported as working.
	 */
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl }}',
			url: '/v1/videos/n8n-credential-check',
			method: 'GET',
			// Redirects count as failures (n8n applies the rules below only to failures): n8n would
			// follow one with the key on it, to any host, and the key goes to the Base URL only.
			ignoreHttpStatusErrors: {
				ignore: true,
				except: [301, 302, 303, 307, 308, 401, 403, 500, 502, 503, 504],
			},
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'The gateway rejected the API key (HTTP 401). Check the API Key.',
				},
			},
			...[301, 302, 303, 307, 308].map((value) => ({
				type: 'responseCode' as const,
				properties: {
					value,
					message: `The gateway answered the check with a redirect (HTTP ${value}), which the test does not follow, so the key goes nowhere else. If the gateway has moved (e.g. to https://), enter its new address as the Base URL.`,
				},
			})),
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The gateway refused this API key (HTTP 403). Check that the key is active and allowed to use this gateway.',
				},
			},
		],
	};
}
