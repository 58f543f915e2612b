'use strict';
/**
 * What the n8n processes of one host print, one entry per line, with secret credential values replaced by
 * [redacted] before anything keeps or shows them.
 */

const REDACTED = '[redacted]';
/** Credential fields whose values must never show up in captured logs. */
const SECRET_FIELD = /key|token|secret|password|passwd|auth/i;

/**
 * @typedef {object} LogEntry
 * @property {string} source which process printed it (the CLI command, or the server's name)
 * @property {string} line the redacted line as printed
 * @property {string} level n8n's level ('debug', 'info', 'warn', 'error'), or 'raw' for a non-JSON line
 * @property {string} message
 * @property {object} [metadata]
 */

class LogCapture {
	/**
	 * @param {object} [options]
	 * @param {boolean} [options.echo] also print non-debug entries to stderr
	 * @param {(entry: LogEntry) => void} [options.onLog] called with every entry
	 * @param {Set<string>} [options.secrets] the redaction list; pass one Set to several captures to share it
	 */
	constructor({ echo = false, onLog, secrets = new Set() } = {}) {
		this.echo = echo;
		this.onLog = onLog;
		this.secrets = secrets;
		/** @type {LogEntry[]} */
		this.entries = [];
		/** How often a secret was replaced. */
		this.redactions = 0;
	}

	/** Remembers the values of secret-looking fields (4 characters or more) of a credential's plain data. */
	addSecretsOf(data) {
		for (const [field, value] of Object.entries(data)) {
			if (SECRET_FIELD.test(field) && typeof value === 'string' && value.length >= 4)
				this.secrets.add(value);
		}
	}

	redact(text) {
		let out = text;
		for (const secret of this.secrets) {
			if (out.includes(secret)) {
				this.redactions += out.split(secret).length - 1;
				out = out.split(secret).join(REDACTED);
			}
		}
		return out;
	}

	record(source, rawLine) {
		const line = this.redact(rawLine);
		if (line.trim() === '') return;
		let entry;
		try {
			const parsed = JSON.parse(line);
			entry = {
				source,
				line,
				level: String(parsed.level),
				message: String(parsed.message ?? ''),
				metadata: parsed.metadata,
			};
		} catch {
			entry = { source, line, level: 'raw', message: line };
		}
		this.entries.push(entry);
		if (this.onLog) this.onLog(entry);
		if (this.echo && entry.level !== 'debug') {
			process.stderr.write(`[n8n ${source}] ${entry.level} ${entry.message.trim()}\n`);
		}
	}

	/** Entries of `source` recorded since position `first` (a previous `entries.length`). */
	since(first, source) {
		return this.entries.slice(first).filter((e) => e.source === source);
	}
}

/** The useful end of a log: warnings, errors and raw output, then the last lines whatever their level. */
function tail(entries, count = 25) {
	const important = entries.filter((e) => ['warn', 'error', 'raw'].includes(e.level)).slice(-count);
	const last = entries.slice(-8).filter((e) => !important.includes(e));
	return [...important, ...last].map((e) => `${e.level}: ${e.message}`).join('\n') || '(no output)';
}

module.exports = { LogCapture, tail };
