/**
 * The gateway's request bodies (docs/gateway-interface.md: "Images", "Videos", "Storyboards", "Characters"), in code. Every body is checked here before it is sent, so a mistake
 * costs the user a clear message instead of a paid, failed request. Messages say what to enter.
 */
// zod comes from the n8n host. `zod/v3` is the same API on hosts with zod 3.25+ (n8n 1.123, 2.41) and
// zod 4.x, whose default export drops required_error, invalid_type_error and errorMap.
import { z } from 'zod/v3';

const DATA_URI = /^data:[\w.+-]+\/[\w.+-]+(;[\w-]+=[^;,]+)*;base64,[A-Za-z0-9+/=\s]+$/;
const BASE64 = /^[A-Za-z0-9+/\s]+={0,2}$/;

export const IMAGE_STYLE_TYPES = ['AUTO', 'GENERAL', 'REALISTIC', 'DESIGN'] as const;
export const MAGIC_PROMPT_OPTIONS = ['AUTO', 'ON', 'OFF'] as const;
export const RENDERING_SPEEDS = ['DEFAULT', 'TURBO', 'QUALITY'] as const;
export const KNOWN_ASPECT_RATIOS = ['ASPECT_1_1', 'ASPECT_16_9', 'ASPECT_9_16'] as const;
export const VIDEO_MODELS = ['vidmodel', 'vidmodel-pro'] as const;

export function isHttpUrl(value: string): boolean {
	try {
		const url = new URL(value);
		return url.protocol === 'http:' || url.protocol === 'https:';
	} catch {
		return false;
	}
}

/** An image reference the gateway accepts: an http(s) URL, a data URI or bare base64. */
export function isImageReference(value: string): boolean {
	return isHttpUrl(value) || DATA_URI.test(value) || (value.length >= 16 && BASE64.test(value));
}

const requiredText = (what: string) =>
	z
		.string({
			required_error: `is required: enter ${what}`,
			invalid_type_error: `must be text: enter ${what}`,
		})
		.trim()
		.min(1, `is empty: enter ${what}`);

const optionalText = z.string().trim().min(1).optional();

const imageReference = (what: string) =>
	requiredText(what).refine(isImageReference, {
		message: `must be an http(s) URL, a data URI (data:image/png;base64,...) or base64 data: enter ${what}`,
	});

const callbackUrl = z
	.string()
	.trim()
	.refine(isHttpUrl, {
		message:
			'must be an http(s) URL: paste the production URL of a Media Gateway Trigger node, or leave it empty',
	})
	.optional();

const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
	z.enum(values as unknown as [T[number], ...Array<T[number]>], {
		errorMap: () => ({ message: `must be one of ${values.join(', ')}` }),
	});

export const imageGenerateSchema = z
	.object({
		prompt: requiredText('a description of the image'),
		aspect_ratio: z
			.string()
			.trim()
			.regex(/^ASPECT_\d+_\d+$/, 'must look like ASPECT_<width>_<height>, e.g. ASPECT_16_9')
			.optional(),
		model: requiredText('a model version such as V_3'),
		magic_prompt_option: oneOf(MAGIC_PROMPT_OPTIONS).optional(),
		rendering_speed: oneOf(RENDERING_SPEEDS).optional(),
		style_type: oneOf(IMAGE_STYLE_TYPES).optional(),
		negative_prompt: optionalText,
	})
	.strict();

export const imageEditSchema = z
	.object({
		prompt: requiredText('a description of the edit'),
		image: imageReference('the image to edit'),
		mask: imageReference('the mask image').optional(),
		// The interface lists no values for Edit; any non-empty word is passed through (docs/gateway-interface.md,
		// "Decisions where the interface is silent").
		style_type: optionalText,
	})
	.strict();

export const imageRemixSchema = z
	.object({
		prompt: requiredText('the new prompt'),
		image: imageReference('the reference image'),
		image_weight: z
			.number({ invalid_type_error: 'must be a number from 0 to 100' })
			.min(0, 'must be from 0 to 100')
			.max(100, 'must be from 0 to 100')
			.optional(),
	})
	.strict();

export const imageReframeSchema = z
	.object({
		image: imageReference('the image to reframe'),
		// The interface gives no format: passed through as typed (docs/gateway-interface.md, "Decisions where the interface is silent").
		resolution: optionalText,
	})
	.strict();

export const imageReplaceBackgroundSchema = z
	.object({
		prompt: requiredText('a description of the new background'),
		image: imageReference('the image whose background to replace'),
	})
	.strict();

const positiveInteger = z
	.number({ invalid_type_error: 'must be a whole number greater than 0' })
	.int('must be a whole number greater than 0')
	.positive('must be a whole number greater than 0');

export const sceneSchema = z
	.object({
		prompt: requiredText('what happens in this scene'),
		duration: positiveInteger,
	})
	.strict();

export const videoUnifiedCreateSchema = z
	.object({
		model: oneOf(VIDEO_MODELS),
		prompt: requiredText('a description of the video'),
		aspect_ratio: z
			.string()
			.trim()
			.regex(/^[1-9]\d*:[1-9]\d*$/, 'must look like <width>:<height>, e.g. 16:9')
			.optional(),
		notifyHook: callbackUrl,
	})
	.strict();

export const videoCreateSchema = z
	.object({
		model: oneOf(VIDEO_MODELS),
		prompt: z.string().trim().optional(),
		size: z
			.string()
			.trim()
			.regex(/^[1-9]\d*x[1-9]\d*$/, 'must look like <width>x<height>, e.g. 1280x720')
			.optional(),
		duration: positiveInteger.optional(),
		image_url: imageReference('the reference image').optional(),
		storyboard: z.array(sceneSchema).min(1, 'needs at least one scene').optional(),
		notifyHook: callbackUrl,
	})
	.strict()
	.superRefine((body, ctx) => {
		if (!body.storyboard && !body.prompt) {
			ctx.addIssue({
				code: z.ZodIssueCode.custom,
				path: ['prompt'],
				message:
					'is empty: enter a description of the video (only a storyboard may go without one)',
			});
		}
	});

export const characterCreateSchema = z
	.object({
		name: requiredText('a name for the character'),
		description: requiredText("a description of the character's appearance"),
		reference_images: z.array(imageReference('a reference image URL')).optional(),
	})
	.strict();

export type ImageGenerateBody = z.infer<typeof imageGenerateSchema>;
export type VideoCreateBody = z.infer<typeof videoCreateSchema>;
export type Scene = z.infer<typeof sceneSchema>;
