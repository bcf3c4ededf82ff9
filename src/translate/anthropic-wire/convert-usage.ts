import { makeUsage, type ChatUsage } from '../chat/types.js';
import type { AnthropicUsage, AnthropicUsageCounts } from './types.js';

/**
 * Anthropic usage → hub usage. Anthropic's `input_tokens` excludes the prompt-cache tokens, so
 * prompt_tokens = input + cache_read + cache_creation; cached_tokens = cache_read (billed at the
 * cache-read rate; cache writes are billed as ordinary input). Anthropic reports no separate
 * thinking count (thinking is inside output_tokens), so reasoning_tokens stays 0.
 *
 * When `iterations` is present (server-side context compaction ran a second sampling pass), the
 * top-level counts cover only the last pass; the iterations are summed so the whole call is billed.
 */
export function convertUsage(usage: AnthropicUsage | null | undefined): ChatUsage {
  const counts = usage?.iterations != null && usage.iterations.length > 0 ? sumCounts(usage.iterations) : (usage ?? {});
  const cacheRead = counts.cache_read_input_tokens ?? 0;
  const promptTokens = (counts.input_tokens ?? 0) + cacheRead + (counts.cache_creation_input_tokens ?? 0);
  return makeUsage(promptTokens, counts.output_tokens ?? 0, cacheRead);
}

/**
 * Folds usage reports of one stream: message_delta's counts are cumulative and replace those of
 * message_start field by field; fields it leaves out keep their earlier value.
 */
export function mergeUsage(earlier: AnthropicUsage | undefined, later: AnthropicUsage | null | undefined): AnthropicUsage | undefined {
  if (later === null || later === undefined) return earlier;
  const merged: AnthropicUsage = { ...earlier };
  for (const key of ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const) {
    const value = later[key];
    if (value !== null && value !== undefined) merged[key] = value;
  }
  if (later.iterations != null && later.iterations.length > 0) merged.iterations = later.iterations;
  return merged;
}

function sumCounts(iterations: readonly AnthropicUsageCounts[]): Required<AnthropicUsageCounts> {
  const total = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  for (const iteration of iterations) {
    total.input_tokens += iteration.input_tokens ?? 0;
    total.output_tokens += iteration.output_tokens ?? 0;
    total.cache_read_input_tokens += iteration.cache_read_input_tokens ?? 0;
    total.cache_creation_input_tokens += iteration.cache_creation_input_tokens ?? 0;
  }
  return total;
}
