import { z } from 'zod';
import type {
  AnthropicBlockDelta,
  AnthropicContentBlockStart,
  AnthropicResponse,
  AnthropicResponseBlock,
  AnthropicStreamEvent,
  AnthropicUsage,
} from '../../translate/anthropic-wire/types.js';

/**
 * Lenient schemas for what the Messages API sends back (ARCHITECTURE principle 6: strict in,
 * lenient out). Counts a server omits or mistypes read as absent; unknown keys (`caller`,
 * `service_tier`, `inference_geo`, `cache_creation`, `context_management`, …) are stripped. Block,
 * delta and event types igw does not know become `unknown` (new server features must not break
 * old gateways), but a known type with a broken shape fails the parse: a tool call without a
 * name must not vanish quietly. The parsed output is the translate layer's Anthropic types.
 */

const count = z.number().nullish().catch(undefined);
const usageCounts = {
  input_tokens: count,
  output_tokens: count,
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
};

export const anthropicUsageSchema = z.object({
  ...usageCounts,
  iterations: z.array(z.object(usageCounts).catch({})).nullish().catch(undefined),
}) satisfies z.ZodType<AnthropicUsage>;

/** `{type}` whose type is none of `known`, as the translate layer's `unknown` variant. */
function unknownType<Field extends string>(known: readonly string[], field: Field) {
  return z
    .object({ type: z.string().refine((type) => !known.includes(type)) })
    .transform((value) => ({ type: 'unknown' as const, [field]: value.type }) as { type: 'unknown' } & Record<Field, string>);
}

const responseBlockSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('thinking'), thinking: z.string() }),
  z.object({ type: z.literal('redacted_thinking') }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
  unknownType(['text', 'thinking', 'redacted_thinking', 'tool_use'], 'block_type'),
]) satisfies z.ZodType<AnthropicResponseBlock>;

export const anthropicResponseSchema = z.object({
  id: z.string().nullish().catch(undefined),
  model: z.string().nullish().catch(undefined),
  content: z.array(responseBlockSchema),
  stop_reason: z.string().nullish().catch(undefined),
  stop_sequence: z.string().nullish().catch(undefined),
  usage: anthropicUsageSchema.nullish().catch(undefined),
}) satisfies z.ZodType<AnthropicResponse>;

const blockStartSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string().nullish() }),
  z.object({ type: z.literal('thinking'), thinking: z.string().nullish() }),
  z.object({ type: z.literal('redacted_thinking') }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
  unknownType(['text', 'thinking', 'redacted_thinking', 'tool_use'], 'block_type'),
]) satisfies z.ZodType<AnthropicContentBlockStart>;

const blockDeltaSchema = z.union([
  z.object({ type: z.literal('text_delta'), text: z.string() }),
  z.object({ type: z.literal('input_json_delta'), partial_json: z.string() }),
  z.object({ type: z.literal('thinking_delta'), thinking: z.string() }),
  z.object({ type: z.literal('signature_delta') }),
  unknownType(['text_delta', 'input_json_delta', 'thinking_delta', 'signature_delta'], 'delta_type'),
]) satisfies z.ZodType<AnthropicBlockDelta>;

const blockIndex = z.number().int().nonnegative();

const KNOWN_EVENTS = ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'ping', 'error'];

const streamEventSchema = z.union([
  z.object({
    type: z.literal('message_start'),
    message: z.object({ id: z.string().nullish().catch(undefined), model: z.string().nullish().catch(undefined), usage: anthropicUsageSchema.nullish().catch(undefined) }),
  }),
  z.object({ type: z.literal('content_block_start'), index: blockIndex, content_block: blockStartSchema }),
  z.object({ type: z.literal('content_block_delta'), index: blockIndex, delta: blockDeltaSchema }),
  z.object({ type: z.literal('content_block_stop'), index: blockIndex }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: z.string().nullish().catch(undefined), stop_sequence: z.string().nullish().catch(undefined) }).catch({}),
    usage: anthropicUsageSchema.nullish().catch(undefined),
  }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  // The error event is kept whole: the classifier reads its envelope.
  z.object({ type: z.literal('error') }).passthrough().transform((payload) => ({ type: 'error' as const, payload: payload as unknown })),
  unknownType(KNOWN_EVENTS, 'event_type'),
]) satisfies z.ZodType<AnthropicStreamEvent>;

export type WireParse<T> = { success: true; data: T } | { success: false; error: unknown };

/** A response body of POST /v1/messages (non-stream). */
export function parseAnthropicResponse(body: unknown): WireParse<AnthropicResponse> {
  const parsed = anthropicResponseSchema.safeParse(body);
  return parsed.success ? { success: true, data: parsed.data } : { success: false, error: parsed.error };
}

/** One parsed SSE `data:` payload. Anthropic's event name always equals the payload's `type`. */
export function parseAnthropicStreamEvent(payload: unknown): WireParse<AnthropicStreamEvent> {
  const parsed = streamEventSchema.safeParse(payload);
  return parsed.success ? { success: true, data: parsed.data } : { success: false, error: parsed.error };
}

/** `{type: "error", error: {…}}`: Anthropic's error envelope, also seen inside a 200 body. */
export function isAnthropicErrorBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as Record<string, unknown>)['type'] === 'error';
}
