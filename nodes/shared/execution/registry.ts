/**
 * One node's registry, made the same way for every node: the Operation parameter first, then each
 * operation's panel parameters in the order the operations are listed, and what each operation
 * registers for execution (its execute, or for video tasks its request builder).
 */
import type { INodeProperties } from 'n8n-workflow';

/** What an operation file exports: its panel parameters (composed with updateDisplayOptions) and more. */
export interface OperationFile {
	description: INodeProperties[];
}

export function operationRegistry<File extends OperationFile, Registered>(
	operationProperty: INodeProperties,
	files: Record<string, File>,
	register: (file: File) => Registered,
): { operations: Record<string, Registered>; properties: INodeProperties[] } {
	return {
		operations: Object.fromEntries(
			Object.entries(files).map(([name, file]) => [name, register(file)]),
		),
		properties: [operationProperty, ...Object.values(files).flatMap((file) => file.description)],
	};
}
