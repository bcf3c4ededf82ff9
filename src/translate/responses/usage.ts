import { makeUsage, type ChatUsage } from '../chat/types.js';
import type { ResponsesUsage } from './types.js';

/** Hub usage → responses-style usage (input/output/total plus the cached and reasoning details). */
export function toResponsesUsage(usage: ChatUsage): ResponsesUsage {
  const cached = usage.cached_tokens ?? usage.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = usage.reasoning_tokens ?? usage.completion_tokens_details?.reasoning_tokens ?? 0;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
  };
}

/** A native Responses API usage object (lenient: any field may be missing) → hub usage, for billing. */
export function nativeResponsesUsage(usage: unknown): ChatUsage {
  const record = (usage ?? {}) as { input_tokens?: unknown; output_tokens?: unknown; input_tokens_details?: { cached_tokens?: unknown }; output_tokens_details?: { reasoning_tokens?: unknown } };
  const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);
  return makeUsage(count(record.input_tokens), count(record.output_tokens), count(record.input_tokens_details?.cached_tokens), count(record.output_tokens_details?.reasoning_tokens));
}
