/**
 * Removes secrets from text before it can reach an error, a log or an output item. A gateway may
 * echo the Authorization header in an error body; n8n shows error bodies to everyone who can open
 * the execution.
 */
export function redactSecrets(
	text: string | undefined,
	secrets: Array<string | undefined>,
): string | undefined {
	if (text === undefined) return undefined;
	let result = text;
	for (const secret of secrets) {
		// Very short values would redact ordinary words; real keys are long.
		if (!secret || secret.length < 4) continue;
		result = result.split(secret).join('***');
	}
	return result.replace(/(Bearer\s+)[^\s"',;]+/gi, '$1***');
}
