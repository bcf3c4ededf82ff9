import { z } from 'zod';

/**
 * Lenient schemas for what OpenAI-compatible servers send back (ARCHITECTURE principle 6:
 * strict in, lenient out). Every field is `.nullish()`; fields we only pass along fall back to
 * undefined instead of failing the whole body (`.catch`). Unknown keys (`obfuscation`,
 * `x_groq.seed`, `citations`, `sla_metrics`, `prompt_token_ids`, …) are stripped by zod.
 * Only the fields igw reads are declared.
 */

/** A count that a vendor might send as null, omit, or mistype: anything else reads as absent. */
const count = z.number().nullish().catch(undefined);

export const upstreamUsageSchema = z.object({
  prompt_tokens: count,
  completion_tokens: count,
  total_tokens: count,
  prompt_tokens_details: z.object({ cached_tokens: count }).nullish().catch(undefined),
  completion_tokens_details: z.object({ reasoning_tokens: count }).nullish().catch(undefined),
  /** DeepSeek's name for cached prompt tokens (sent beside prompt_tokens_details). */
  prompt_cache_hit_tokens: count,
});
export type UpstreamUsage = z.output<typeof upstreamUsageSchema>;

const topLogprobSchema = z.object({
  token: z.string(),
  logprob: z.number(),
  bytes: z.array(z.number()).nullish(),
});

const tokenLogprobSchema = topLogprobSchema.extend({
  top_logprobs: z.array(topLogprobSchema).nullish(),
});

export const upstreamLogprobsSchema = z
  .object({
    content: z.array(tokenLogprobSchema).nullish(),
    refusal: z.array(tokenLogprobSchema).nullish(),
  })
  .nullish()
  .catch(undefined);
export type UpstreamLogprobs = z.output<typeof upstreamLogprobsSchema>;

/** Some servers send content as an array of parts (text parts are what we keep). */
const contentSchema = z
  .union([z.string(), z.array(z.object({ type: z.string().nullish(), text: z.string().nullish() }).catch({}))])
  .nullish();

const upstreamToolCallSchema = z.object({
  /** Missing on Mistral; present (and meaningless) on Ollama's non-stream tool calls. */
  index: z.number().int().nonnegative().nullish().catch(undefined),
  /** `""` on DashScope continuation deltas. */
  id: z.string().nullish().catch(undefined),
  type: z.string().nullish(),
  function: z
    .object({
      name: z.string().nullish(),
      /** A JSON string on the wire; an object from a few local servers. */
      arguments: z.unknown().optional(),
    })
    .nullish(),
});
export type UpstreamToolCall = z.output<typeof upstreamToolCallSchema>;

const messageFields = {
  role: z.string().nullish(),
  content: contentSchema,
  /** DeepSeek, xAI, Z.ai, vLLM. */
  reasoning_content: z.string().nullish().catch(undefined),
  /** Ollama, OpenRouter, Groq. */
  reasoning: z.string().nullish().catch(undefined),
  refusal: z.string().nullish().catch(undefined),
  tool_calls: z.array(upstreamToolCallSchema).nullish(),
};

/** An in-body `{error: …}` (OpenRouter sends it inside a 200 stream). */
const errorFieldSchema = z.unknown().optional();

export const upstreamChatResponseSchema = z.object({
  id: z.string().nullish(),
  created: z.number().nullish().catch(undefined),
  model: z.string().nullish(),
  system_fingerprint: z.string().nullish().catch(undefined),
  choices: z.array(
    z.object({
      index: z.number().int().nonnegative().nullish(),
      message: z.object(messageFields).nullish(),
      finish_reason: z.string().nullish().catch(undefined),
      logprobs: upstreamLogprobsSchema,
    }),
  ),
  usage: upstreamUsageSchema.nullish().catch(undefined),
  error: errorFieldSchema,
});
export type UpstreamChatResponse = z.output<typeof upstreamChatResponseSchema>;

export const upstreamChatChunkSchema = z.object({
  id: z.string().nullish().catch(undefined),
  /** `chat.completion.chunk`, or Perplexity's `chat.completion.done` on the last one. */
  object: z.string().nullish(),
  created: z.number().nullish().catch(undefined),
  model: z.string().nullish().catch(undefined),
  system_fingerprint: z.string().nullish().catch(undefined),
  choices: z
    .array(
      z.object({
        index: z.number().int().nonnegative().nullish(),
        delta: z.object(messageFields).nullish(),
        finish_reason: z.string().nullish().catch(undefined),
        logprobs: upstreamLogprobsSchema,
      }),
    )
    .nullish(),
  usage: upstreamUsageSchema.nullish().catch(undefined),
  /** Groq reports usage here (and, lately, also at the top level). */
  x_groq: z.object({ usage: upstreamUsageSchema.nullish().catch(undefined) }).nullish().catch(undefined),
  error: errorFieldSchema,
});
export type UpstreamChatChunk = z.output<typeof upstreamChatChunkSchema>;

export const upstreamEmbeddingsResponseSchema = z.object({
  data: z.array(
    z.object({
      index: z.number().int().nonnegative().nullish(),
      /** Floats, or a base64 string of little-endian float32 when the server ignores encoding_format. */
      embedding: z.union([z.array(z.number()), z.string()]),
    }),
  ),
  usage: z.object({ prompt_tokens: count, total_tokens: count }).nullish().catch(undefined),
});
export type UpstreamEmbeddingsResponse = z.output<typeof upstreamEmbeddingsResponseSchema>;

const nullish = (value: unknown): boolean => value === undefined || value === null;
const stringOrNullish = (value: unknown): boolean => nullish(value) || typeof value === 'string';

/** z.number() refuses Infinity, which JSON.parse makes of `1e999`. */
const countOrNullish = (value: unknown): boolean => nullish(value) || Number.isFinite(value);
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A details object (`prompt_tokens_details`, `completion_tokens_details`) whose one count igw reads is a number or absent. */
function isPlainDetails(value: unknown, field: string): boolean {
  return nullish(value) || (isPlainObject(value) && countOrNullish(value[field]));
}

/**
 * A usage object whose every field igw reads is already what the schema would make of it: counts
 * that are numbers or absent, details objects (or absent). The final usage chunk of nearly every
 * stream has this shape; the schema ran on it once per streamed response (issue 18 item 3).
 * Unknown keys stay on the object, but normalizeUsage reads only the declared ones.
 */
function isPlainUsage(value: unknown): boolean {
  if (nullish(value)) return true;
  if (!isPlainObject(value)) return false;
  return (
    countOrNullish(value['prompt_tokens']) &&
    countOrNullish(value['completion_tokens']) &&
    countOrNullish(value['total_tokens']) &&
    countOrNullish(value['prompt_cache_hit_tokens']) &&
    isPlainDetails(value['prompt_tokens_details'], 'cached_tokens') &&
    isPlainDetails(value['completion_tokens_details'], 'reasoning_tokens')
  );
}

/**
 * The shape nearly every stream event has (text deltas, role, finish, a plain usage object):
 * checked by hand, because running the full schema on each of hundreds of events per response
 * costs more than all the other per-event work together. For such a payload the schema's output
 * carries exactly the fields the normalizer reads, unchanged, so the payload is used as it is.
 */
function isPlainTextChunk(payload: unknown): payload is UpstreamChatChunk {
  if (payload === null || typeof payload !== 'object') return false;
  const chunk = payload as Record<string, unknown>;
  if (!isPlainUsage(chunk['usage']) || !nullish(chunk['x_groq']) || chunk['error'] !== undefined) return false;
  if (!stringOrNullish(chunk['id']) || !stringOrNullish(chunk['model']) || !stringOrNullish(chunk['object']) || !stringOrNullish(chunk['system_fingerprint'])) return false;
  if (!nullish(chunk['created']) && typeof chunk['created'] !== 'number') return false;
  const choices = chunk['choices'];
  if (!Array.isArray(choices)) return false;
  for (const choice of choices as unknown[]) {
    if (choice === null || typeof choice !== 'object') return false;
    const entry = choice as Record<string, unknown>;
    const index = entry['index'];
    if (!nullish(index) && !(typeof index === 'number' && Number.isInteger(index) && index >= 0)) return false;
    if (!stringOrNullish(entry['finish_reason']) || !nullish(entry['logprobs'])) return false;
    const delta = entry['delta'];
    if (nullish(delta)) continue;
    if (typeof delta !== 'object') return false;
    const fields = delta as Record<string, unknown>;
    if (!nullish(fields['tool_calls'])) return false;
    for (const key of ['role', 'content', 'reasoning_content', 'reasoning', 'refusal']) if (!stringOrNullish(fields[key])) return false;
  }
  return true;
}

/** Schema parse of one stream event, with the hand-checked fast path for plain text chunks. */
export function parseUpstreamChunk(payload: unknown): { success: true; data: UpstreamChatChunk } | { success: false; error: z.ZodError } {
  if (isPlainTextChunk(payload)) return { success: true, data: payload };
  return upstreamChatChunkSchema.safeParse(payload);
}
