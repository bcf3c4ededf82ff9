import type { ChatUsage } from '../chat/types.js';
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
