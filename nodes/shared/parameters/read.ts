/**
 * Reading node parameters by the definition the panel shows: the parameter's name and the label an
 * error names both come from the one `INodeProperties` object, so a label is written once.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

type Parameter = Pick<INodeProperties, 'name' | 'displayName'>;

/** Reads a text parameter by its definition, trimmed; anything but text or a number is reported by its label. */
export function readText(
	ctx: IExecuteFunctions,
	parameter: Parameter,
	itemIndex: number,
	fallback = '',
): string {
	return stringParameter(ctx, parameter.name, itemIndex, parameter.displayName, fallback);
}

/** Reads a number parameter by its definition; numeric text from an expression is accepted. */
export function readNumber(
	ctx: IExecuteFunctions,
	parameter: Parameter,
	itemIndex: number,
): number | undefined {
	return numberParameter(ctx, parameter.name, itemIndex, parameter.displayName);
}

/** Reads a string parameter, trimmed; anything but a string or number is reported by name. */
export function stringParameter(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
	fallback = '',
): string {
	const value = ctx.getNodeParameter(name, itemIndex, fallback) as unknown;
	if (value === undefined || value === null) return '';
	if (typeof value === 'string') return value.trim();
	if (typeof value === 'number') return String(value);
	throw new NodeOperationError(ctx.getNode(), `${label} must be text`, {
		itemIndex,
		description: `Got a ${Array.isArray(value) ? 'list' : typeof value}. If you use an expression, make it return text.`,
	});
}

/**
 * Reads a number parameter. Expressions can hand over numeric text ("42"), which is accepted;
 * anything else is reported by name rather than sent as NaN.
 */
export function numberParameter(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
): number | undefined {
	const value = ctx.getNodeParameter(name, itemIndex, undefined) as unknown;
	if (value === undefined || value === null || value === '') return undefined;
	const parsed =
		typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
	if (!Number.isFinite(parsed)) {
		throw new NodeOperationError(ctx.getNode(), `${label} must be a number`, {
			itemIndex,
			description: `Got "${String(value).slice(0, 100)}".`,
		});
	}
	return parsed;
}
