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
 * Choices whose every field igw reads is already what the schema would make of it: an index that
 * is a non-negative integer or absent, a string finish reason, no logprobs, and a `delta` (stream)
 * or `message` (whole answer) of strings only — no tool calls, no content parts.
 */
function isPlainChoices(choices: unknown, body: 'delta' | 'message'): boolean {
  if (!Array.isArray(choices)) return false;
  for (const choice of choices as unknown[]) {
    if (!isPlainObject(choice)) return false;
    const index = choice['index'];
    if (!nullish(index) && !(typeof index === 'number' && Number.isInteger(index) && index >= 0)) return false;
    if (!stringOrNullish(choice['finish_reason']) || !nullish(choice['logprobs'])) return false;
    const fields = choice[body];
    if (nullish(fields)) continue;
    if (!isPlainObject(fields) || !nullish(fields['tool_calls'])) return false;
    for (const key of ['role', 'content', 'reasoning_content', 'reasoning', 'refusal']) if (!stringOrNullish(fields[key])) return false;
  }
  return true;
}

/** The top-level fields a chunk and a whole answer share, as the schema would read them (an `error` sends the body to the schema path). */
function isPlainEnvelope(body: Record<string, unknown>): boolean {
  return (
    isPlainUsage(body['usage']) &&
    nullish(body['error']) &&
    stringOrNullish(body['id']) &&
    stringOrNullish(body['model']) &&
    stringOrNullish(body['system_fingerprint']) &&
    countOrNullish(body['created'])
  );
}

/**
 * The shape nearly every stream event has (text deltas, role, finish, a plain usage object):
 * checked by hand, because running the full schema on each of hundreds of events per response
 * costs more than all the other per-event work together. For such a payload the schema's output
 * carries exactly the fields the normalizer reads, unchanged, so the payload is used as it is.
 */
function isPlainTextChunk(payload: unknown): payload is UpstreamChatChunk {
  if (!isPlainObject(payload) || payload['error'] !== undefined || !nullish(payload['x_groq']) || !stringOrNullish(payload['object'])) return false;
  return isPlainEnvelope(payload) && isPlainChoices(payload['choices'], 'delta');
}

/** Schema parse of one stream event, with the hand-checked fast path for plain text chunks. */
export function parseUpstreamChunk(payload: unknown): { success: true; data: UpstreamChatChunk } | { success: false; error: z.ZodError } {
  if (isPlainTextChunk(payload)) return { success: true, data: payload };
  return upstreamChatChunkSchema.safeParse(payload);
}

/** A whole text answer (no tool calls, logprobs or content parts): the same hand check, for the non-stream chat call. */
function isPlainTextResponse(body: unknown): body is UpstreamChatResponse {
  return isPlainObject(body) && isPlainEnvelope(body) && isPlainChoices(body['choices'], 'message');
}

/** Schema parse of a whole chat answer, with the hand-checked fast path for plain text answers (issue 18 item 3). */
export function parseUpstreamResponse(body: unknown): { success: true; data: UpstreamChatResponse } | { success: false; error: z.ZodError } {
  if (isPlainTextResponse(body)) return { success: true, data: body };
  return upstreamChatResponseSchema.safeParse(body);
}
