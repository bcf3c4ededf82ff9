import type { ChatUsage } from '../chat/types.js';
import type { MessagesUsage } from './types.js';

/**
 * Hub usage → message-style usage. Anthropic's `input_tokens` excludes cache reads, so
 * input_tokens = prompt_tokens − cached_tokens and the cached part is reported as
 * cache_read_input_tokens (spec: "automatic provider prefix caching still reported").
 */
export function toMessagesUsage(usage: ChatUsage): MessagesUsage {
  const cached = Math.min(usage.cached_tokens ?? usage.prompt_tokens_details?.cached_tokens ?? 0, usage.prompt_tokens);
  return { input_tokens: usage.prompt_tokens - cached, output_tokens: usage.completion_tokens, cache_read_input_tokens: cached };
}
