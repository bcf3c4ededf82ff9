import { classifyUpstreamStreamError } from '../../errors/classify-upstream.js';
import { GatewayError } from '../../errors/gateway-error.js';
import {
  makeUsage,
  type ChatChoice,
  type ChatResponse,
  type ChatUsage,
  type ChoiceLogprobs,
  type FinishReason,
  type ToolCall,
} from '../../translate/chat/types.js';
import type { EmbeddingsResult } from '../types.js';
import {
  parseUpstreamResponse,
  upstreamEmbeddingsResponseSchema,
  type UpstreamLogprobs,
  type UpstreamToolCall,
  type UpstreamUsage,
} from './wire.js';

/**
 * Upstream OpenAI-compatible bodies → hub types (non-stream responses, usage, embeddings).
 * The stream counterpart is `ChunkNormalizer` in normalize-stream.ts. Vendor differences are
 * absorbed by reading every known spelling of a field; no vendor is named in the logic.
 */

/** Values the upstream may omit that the hub requires. */
export interface NormalizeFallbacks {
  providerId: string;
  /** Used when the upstream sends no id. */
  id: string;
  /** Unix seconds, used when the upstream sends no `created`. */
  created: number;
  /** Used when the upstream sends no model name (the route's upstream_model). */
  model: string;
}

/**
 * One usage shape for every vendor, always built by makeUsage. Cached prompt tokens come from
 * `prompt_tokens_details.cached_tokens` or DeepSeek's `prompt_cache_hit_tokens`.
 */
export function normalizeUsage(usage: UpstreamUsage | null | undefined): ChatUsage | undefined {
  if (usage === null || usage === undefined) return undefined;
  const { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total } = usage;
  if (prompt == null && completion == null && total == null) return undefined;
  const promptTokens = prompt ?? 0;
  const reasoningTokens = usage.completion_tokens_details?.reasoning_tokens ?? 0;
  let completionTokens = completion ?? Math.max(0, (total ?? 0) - promptTokens);
  // xAI counts reasoning outside completion_tokens (its total is prompt + completion +
  // reasoning); the hub follows OpenAI, where completion_tokens includes reasoning.
  if (reasoningTokens > 0 && total != null && total !== promptTokens + completionTokens && total === promptTokens + completionTokens + reasoningTokens) {
    completionTokens += reasoningTokens;
  }
  const cachedTokens = Math.max(usage.prompt_tokens_details?.cached_tokens ?? 0, usage.prompt_cache_hit_tokens ?? 0);
  return makeUsage(promptTokens, completionTokens, cachedTokens, reasoningTokens);
}

/** Maps the finish reasons seen in the wild onto the hub's; unknown ones read as `stop`. */
export function normalizeFinishReason(reason: string | null | undefined): FinishReason | null {
  if (reason === null || reason === undefined || reason === '') return null;
  switch (reason) {
    case 'stop':
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return reason;
    case 'function_call':
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_length':
      return 'length';
    default:
      return 'stop';
  }
}

export function normalizeLogprobs(logprobs: UpstreamLogprobs): ChoiceLogprobs | null {
  if (logprobs === null || logprobs === undefined) return null;
  const mapTokens = (tokens: NonNullable<UpstreamLogprobs>['content']) =>
    tokens == null
      ? null
      : tokens.map((token) => ({
          token: token.token,
          logprob: token.logprob,
          bytes: token.bytes ?? null,
          top_logprobs: (token.top_logprobs ?? []).map((top) => ({ token: top.token, logprob: top.logprob, bytes: top.bytes ?? null })),
        }));
  const normalized: ChoiceLogprobs = { content: mapTokens(logprobs.content) };
  if (logprobs.refusal != null) normalized.refusal = mapTokens(logprobs.refusal);
  return normalized;
}

/** Content as a string, also when the server sent an array of text parts. */
export function normalizeContent(content: string | Array<{ type?: string | null; text?: string | null }> | null | undefined): string | null {
  if (content === null || content === undefined) return null;
  if (typeof content === 'string') return content;
  const texts = content.filter((part) => typeof part.text === 'string' && (part.type == null || part.type === 'text')).map((part) => part.text as string);
  return texts.length === 0 ? null : texts.join('');
}

/** Tool arguments are a JSON string on the hub; a few servers send an object. */
export function normalizeArguments(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Upstream `chat.completion` → hub ChatResponse. Throws INFERENCE_3105 on an unusable body. */
export function normalizeChatResponse(body: unknown, fallbacks: NormalizeFallbacks): ChatResponse {
  const parsed = parseUpstreamResponse(body);
  if (!parsed.success) throw unexpectedBody(fallbacks.providerId, 'chat completion', parsed.error);
  const upstream = parsed.data;
  // OpenRouter may answer 200 with an error object instead of choices.
  if (upstream.error !== null && upstream.error !== undefined) throw classifyUpstreamStreamError(body, fallbacks.providerId);
  if (upstream.choices.length === 0) throw unexpectedBody(fallbacks.providerId, 'chat completion without choices', body);
  const id = nonEmpty(upstream.id) ?? fallbacks.id;

  const choices = upstream.choices.map((choice, position): ChatChoice => {
    const message = choice.message ?? {};
    const toolCalls = (message.tool_calls ?? []).map((call, callIndex) => normalizeToolCall(call, `call_${id}_${position}_${callIndex}`));
    let content = normalizeContent(message.content);
    if (content === '' && toolCalls.length > 0) content = null;
    const reasoning = nonEmpty(message.reasoning_content) ?? nonEmpty(message.reasoning);
    const refusal = nonEmpty(message.refusal);
    return {
      index: choice.index ?? position,
      message: {
        role: 'assistant',
        content,
        tool_calls: toolCalls.length === 0 ? null : toolCalls,
        ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
        ...(refusal === undefined ? {} : { refusal }),
      },
      // A non-stream answer is complete by definition; a server that leaves this out finished.
      finish_reason: normalizeFinishReason(choice.finish_reason) ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      logprobs: normalizeLogprobs(choice.logprobs),
    };
  });

  return {
    id,
    object: 'chat.completion',
    created: upstream.created ?? fallbacks.created,
    model: nonEmpty(upstream.model) ?? fallbacks.model,
    choices,
    usage: normalizeUsage(upstream.usage) ?? makeUsage(0, 0),
    system_fingerprint: nonEmpty(upstream.system_fingerprint) ?? null,
  };
}

function normalizeToolCall(call: UpstreamToolCall, generatedId: string): ToolCall {
  return {
    id: nonEmpty(call.id) ?? generatedId,
    type: 'function',
    function: { name: call.function?.name ?? '', arguments: normalizeArguments(call.function?.arguments) },
  };
}

/**
 * Upstream embeddings list → vectors in input order. Vectors come as floats or, when a server
 * ignores `encoding_format: "float"`, as base64 of little-endian float32.
 */
export function normalizeEmbeddings(body: unknown, expectedCount: number, providerId: string): EmbeddingsResult {
  const parsed = upstreamEmbeddingsResponseSchema.safeParse(body);
  if (!parsed.success) throw unexpectedBody(providerId, 'embeddings list', parsed.error);
  const items = parsed.data.data.map((item, position) => ({ index: item.index ?? position, embedding: item.embedding }));
  items.sort((left, right) => left.index - right.index);
  if (items.length !== expectedCount) {
    throw new GatewayError('INFERENCE_3105', `Provider "${providerId}" returned ${items.length} embeddings for ${expectedCount} inputs.`, { provider: providerId });
  }
  const vectors = items.map((item) => (typeof item.embedding === 'string' ? decodeFloat32Base64(item.embedding) : item.embedding));
  const usage = parsed.data.usage;
  return { vectors, promptTokens: usage?.prompt_tokens ?? usage?.total_tokens ?? 0 };
}

export function decodeFloat32Base64(encoded: string): number[] {
  const bytes = Buffer.from(encoded, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Array<number>(Math.floor(bytes.byteLength / 4));
  for (let offset = 0; offset + 4 <= bytes.byteLength; offset += 4) vector[offset / 4] = view.getFloat32(offset, true);
  return vector;
}

export function unexpectedBody(providerId: string, what: string, cause: unknown): GatewayError {
  return new GatewayError('INFERENCE_3105', `Provider "${providerId}" sent a ${what} igw cannot read.`, { provider: providerId }, { cause });
}

export function nonEmpty(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value === '' ? undefined : value;
}
