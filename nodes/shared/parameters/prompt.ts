import type { INodeProperties } from 'n8n-workflow';

/** The Prompt parameter every generating operation starts with; each operation gives its own example. */
export function promptProperty(options: {
	description: string;
	placeholder: string;
}): INodeProperties {
	return {
		displayName: 'Prompt',
		name: 'prompt',
		type: 'string',
		typeOptions: { rows: 3 },
		required: true,
		default: '',
		placeholder: options.placeholder,
		description: options.description,
	};
}
