import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { ZodIssue, ZodType, ZodTypeDef } from 'zod/v3';

/** Maps a body field to the name the user sees in the node panel, so errors point at the right box. */
export type FieldLabels = Record<string, string>;

/**
 * The labels of a request body, derived from the panel parameters (or image inputs) each body field
 * is read from, so a validation message uses the label the panel shows and no label is written twice.
 */
export function fieldLabels(
	fields: Record<string, Pick<INodeProperties, 'displayName'> | string>,
): FieldLabels {
	return Object.fromEntries(
		Object.entries(fields).map(([key, field]) => [
			key,
			typeof field === 'string' ? field : field.displayName,
		]),
	);
}

export function labelFor(path: Array<string | number>, labels: FieldLabels): string {
	const [head, index, ...rest] = path;
	if (typeof index === 'number') {
		const listLabel = labels[String(head)] ?? String(head);
		const inner = rest.length
			? ` → ${labels[`${String(head)}.${rest.join('.')}`] ?? rest.join('.')}`
			: '';
		return `${listLabel} #${index + 1}${inner}`;
	}
	const key = path.join('.');
	return labels[key] ?? (key || 'Request');
}

function issueText(issue: ZodIssue, labels: FieldLabels): string {
	const field = issue.path.map(String).join('.');
	const label = labelFor(issue.path, labels);
	if (issue.code === 'unrecognized_keys') {
		return `Unknown field(s) ${issue.keys.join(', ')}: remove them`;
	}
	return field && label !== field
		? `${label} (${field}) ${issue.message}`
		: `${label} ${issue.message}`;
}

/**
 * Checks a request body against its schema and returns the parsed body. The first problem
 * becomes the error message; all of them are listed in the description.
 */
export function validateBody<Output>(
	ctx: IExecuteFunctions,
	schema: ZodType<Output, ZodTypeDef, unknown>,
	body: unknown,
	itemIndex: number,
	labels: FieldLabels,
): Output {
	const result = schema.safeParse(body);
	if (result.success) return result.data;
	const texts = result.error.issues.map((issue) => issueText(issue, labels));
	throw new NodeOperationError(ctx.getNode(), texts[0], {
		itemIndex,
		description:
			texts.length > 1
				? `Fix these parameters of input item ${itemIndex}:\n- ${texts.join('\n- ')}`
				: `Fix this parameter of input item ${itemIndex}; nothing was sent to the gateway.`,
	});
}

/** Drops fields that are undefined or empty strings: the gateway applies its own defaults then. */
export function compact<T extends IDataObject>(body: T): T {
	const out: IDataObject = {};
	for (const [key, value] of Object.entries(body)) {
		if (value === undefined || value === null) continue;
		if (typeof value === 'string' && value.trim() === '') continue;
		out[key] = value;
	}
	return out as T;
}
