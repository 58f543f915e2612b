/**
 * JSON Schema of output items, derived from items the nodes really produced. n8n's editor shows
 * such a schema in the Schema view before a node has run (GET /schemas/<type>/<x.y.z>/<op>.json,
 * served from the package's `__schema__` folder), so users can map fields by drag and drop.
 *
 * The editor reads `type` and `properties` (objects) and `items` (arrays); n8n's own nodes ship
 * that and nothing else. Several samples of one operation (e.g. "Return Task at Once" and "Wait
 * Until Done") are merged: every field any of them outputs is listed, in the order it first
 * appears. A field is typed by its non-null values, so a field that is `null` in every sample is
 * an error here: add a sample that fills it.
 */
import type { IDataObject } from 'n8n-workflow';

export type JsonType = 'string' | 'number' | 'boolean' | 'object' | 'array';

export interface JsonSchema {
	type: JsonType;
	properties?: Record<string, JsonSchema>;
	items?: JsonSchema;
}

type Json =
	string | number | boolean | null | Json[] | { [key: string]: Json } | IDataObject | undefined;

function typeOf(value: Json): JsonType | 'null' {
	if (value === null || value === undefined) return 'null';
	if (Array.isArray(value)) return 'array';
	const type = typeof value;
	if (type === 'string' || type === 'number' || type === 'boolean' || type === 'object')
		return type;
	throw new Error(`not a JSON value: ${type}`);
}

/** Schema of every value seen at `where` (a field path, for error messages). */
function schemaOfValues(values: Json[], where: string): JsonSchema {
	const present = values.filter((v) => typeOf(v) !== 'null');
	if (present.length === 0) {
		throw new Error(
			`${where} is null or missing in every sample: add a sample in which it has a value`,
		);
	}
	const types = [...new Set(present.map(typeOf))] as JsonType[];
	if (types.length > 1)
		throw new Error(`${where} has several types in the samples: ${types.join(', ')}`);
	const [type] = types;
	if (type === 'object') {
		const objects = present as Array<Record<string, Json>>;
		const keys: string[] = [];
		for (const object of objects)
			for (const key of Object.keys(object)) if (!keys.includes(key)) keys.push(key);
		const properties: Record<string, JsonSchema> = {};
		for (const key of keys) {
			properties[key] = schemaOfValues(
				objects.map((o) => o[key]),
				`${where}.${key}`,
			);
		}
		return { type, properties };
	}
	if (type === 'array') {
		const elements = (present as Json[][]).flat();
		if (elements.length === 0)
			throw new Error(`${where} is an empty list in every sample: add one with elements`);
		return { type, items: schemaOfValues(elements, `${where}[]`) };
	}
	return { type };
}

/** The schema of output items' `json`, merged over all samples. */
export function schemaOfItems(samples: IDataObject[], where = 'item'): JsonSchema {
	if (samples.length === 0) throw new Error(`${where}: no samples`);
	return schemaOfValues(samples as Json[], where);
}

/** Field paths a schema lists (`video.url`, `payload.output.video_url`, `data[].url`). */
export function fieldPaths(schema: JsonSchema, prefix = ''): string[] {
	const paths: string[] = [];
	for (const [key, child] of Object.entries(schema.properties ?? {})) {
		const path = prefix ? `${prefix}.${key}` : key;
		paths.push(path);
		if (child.type === 'object') paths.push(...fieldPaths(child, path));
		if (child.type === 'array' && child.items?.type === 'object')
			paths.push(...fieldPaths(child.items, `${path}[]`));
	}
	return paths;
}
