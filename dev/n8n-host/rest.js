'use strict';
/** n8n's REST API as the editor uses it: the owner account and binary data served by the main process. */

/** Sets up the owner account on `mainUrl` and returns the session cookie (`n8n-auth=…`). */
async function setUpOwner(mainUrl) {
	const response = await fetch(`${mainUrl}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			email: 'owner@example.com',
			firstName: 'Queue',
			lastName: 'Owner',
			password: 'Queue-Owner-Password-1',
		}),
	});
	if (response.status !== 200)
		throw new Error(`owner setup answered ${response.status}: ${await response.text()}`);
	const cookie = response.headers
		.getSetCookie()
		.map((c) => c.split(';')[0])
		.find((c) => c.startsWith('n8n-auth='));
	if (!cookie) throw new Error('owner setup set no n8n-auth cookie');
	return cookie;
}

/** A binary entry's bytes as the main process serves them to the editor (`/rest/binary-data`). */
async function binaryFromMain(mainUrl, cookie, meta) {
	const url = `${mainUrl}/rest/binary-data?id=${encodeURIComponent(meta.id)}&action=download`;
	const response = await fetch(url, { headers: { cookie } });
	if (response.status !== 200) throw new Error(`main answered ${response.status} for ${meta.id}`);
	return Buffer.from(await response.arrayBuffer());
}

module.exports = { setUpOwner, binaryFromMain };
