import { z } from 'zod';

/**
 * OpenAI platform fields declared alike by ChatCompletionCreateParams and ResponseCreateParams
 * (openai 6.49): validated the same way on both surfaces (what igw does with them is the
 * endpoints' business: chat-completions-fields.ts, responses-fields.ts).
 */

const moderationMode = z.object({ mode: z.enum(['score', 'block']) }).strict().nullable().optional();

/** Moderation of input and output by an OpenAI moderation model (`block` stops flagged content). */
export const moderationSchema = z
  .object({ model: z.string(), policy: z.object({ input: moderationMode, output: moderationMode }).strict().nullable().optional() })
  .strict()
  .nullable()
  .optional();

/** Prompt-cache hints. */
export const promptCacheOptionsSchema = z.object({ mode: z.enum(['implicit', 'explicit']).optional(), ttl: z.string().optional() }).strict().optional();
