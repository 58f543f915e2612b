/**
 * The nodes import `zod/v3`, which both zod 3.25+ and zod 4.x expose with the API the schemas use
 * (`required_error`, `invalid_type_error`, `errorMap`, `issue.received`); zod 4's default export drops
 * those. This runs in the normal unit run (zod 3.25, as n8n 1.123 and 2.41 ship) and in the zod 4 host
 * run (jest.zod4.config.js), and checks which zod the node code really got.
 */
import { ZodType as Zod3ZodType } from 'zod/v3';
import { ZodType as Zod4HostZodType } from 'zod-v4/v3';

import { imageGenerateSchema } from '../../nodes/shared/gateway/schemas';
import { parseCallback } from '../../nodes/shared/gateway/callbacks';
import { imageSuccess } from '../trigger/samples';
import zod3Package from 'zod/package.json';
import zod4Package from 'zod-v4/package.json';

declare const HOST_ZOD_MAJOR: number | undefined;
const hostMajor = typeof HOST_ZOD_MAJOR === 'number' ? HOST_ZOD_MAJOR : 3;

it(`node code runs on the zod ${hostMajor} the host provides`, () => {
	expect(zod3Package.version).toMatch(/^3\.25\./);
	expect(zod4Package.version).toMatch(/^4\./);
	expect(imageGenerateSchema instanceof Zod4HostZodType).toBe(hostMajor === 4);
	expect(imageGenerateSchema instanceof Zod3ZodType).toBe(hostMajor === 3);
});

it('keeps the exact messages of required_error, invalid_type_error, errorMap and issue.received', () => {
	const messages = (input: unknown) => {
		const result = imageGenerateSchema.safeParse(input);
		return result.success
			? []
			: result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
	};
	expect(messages({ model: 'V_3' })).toEqual([
		'prompt is required: enter a description of the image',
	]);
	expect(messages({ prompt: 5, model: 'V_3' })).toEqual([
		'prompt must be text: enter a description of the image',
	]);
	expect(messages({ prompt: 'a cat', model: 'V_3', style_type: 'OIL' })).toEqual([
		'style_type must be one of AUTO, GENERAL, REALISTIC, DESIGN',
	]);
	expect(parseCallback({ ...imageSuccess(), startTime: 1.5 })).toEqual({
		ok: false,
		reason: 'startTime: must be an integer, not float',
	});
});
