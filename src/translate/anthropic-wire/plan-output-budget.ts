import type { ChatRequest } from '../chat/types.js';
import { invalidForAnthropic } from './invalid-for-anthropic.js';

/** Used when neither the request nor the model config says how long the answer may be. */
export const DEFAULT_MAX_TOKENS = 4096;

/** reasoning_effort → thinking budget_tokens (Anthropic's minimum budget is 1024). */
export const THINKING_BUDGET_TOKENS = { low: 1024, medium: 4096, high: 16384 } as const;
const MIN_THINKING_BUDGET = 1024;

export interface OutputBudgetOptions {
  /** The model's max_output_tokens from the igw config, when set. */
  maxOutputTokens?: number | null | undefined;
  /** Whether the model can think (capabilities.reasoning); reasoning_effort is ignored otherwise. */
  reasoning?: boolean | undefined;
}

export interface OutputBudget {
  max_tokens: number;
  thinking?: { type: 'enabled'; budget_tokens: number };
}

/**
 * `max_tokens` is required by Anthropic: the request's max_completion_tokens or max_tokens,
 * else the model's max_output_tokens, else 4096. With reasoning_effort on a reasoning model,
 * thinking is enabled; Anthropic counts thinking inside max_tokens and needs max_tokens >
 * budget_tokens:
 * - a max_tokens the client set is kept, and the budget shrinks to fit below it (refused when
 *   that leaves less than Anthropic's 1024 minimum);
 * - a max_tokens from the model config is kept, the budget shrinks likewise;
 * - the 4096 fallback is added on top of the budget, so the answer keeps its room.
 * On a model without reasoning, reasoning_effort is ignored (spec: "ignored by non-reasoning models").
 */
export function planOutputBudget(request: ChatRequest, options: OutputBudgetOptions): OutputBudget {
  const requestedField = request.max_completion_tokens != null ? 'max_completion_tokens' : request.max_tokens != null ? 'max_tokens' : undefined;
  const requested = request.max_completion_tokens ?? request.max_tokens ?? undefined;
  const configured = options.maxOutputTokens ?? undefined;
  const effort = request.reasoning_effort ?? undefined;

  if (effort === undefined || options.reasoning !== true) {
    return { max_tokens: requested ?? configured ?? DEFAULT_MAX_TOKENS };
  }
  const wanted = THINKING_BUDGET_TOKENS[effort];
  if (requested === undefined && configured === undefined) {
    return { max_tokens: wanted + DEFAULT_MAX_TOKENS, thinking: { type: 'enabled', budget_tokens: wanted } };
  }
  const maxTokens = (requested ?? configured) as number;
  const budget = Math.min(wanted, maxTokens - 1);
  if (budget < MIN_THINKING_BUDGET) {
    const field = requestedField ?? 'reasoning_effort';
    throw invalidForAnthropic(
      field,
      requestedField === undefined
        ? `reasoning_effort needs room for at least ${MIN_THINKING_BUDGET} thinking tokens, but this model's max_output_tokens is ${maxTokens}.`
        : `"${field}" ${maxTokens} leaves no room for thinking: with reasoning_effort this model's provider (kind anthropic) needs more than ${MIN_THINKING_BUDGET} tokens.`,
    );
  }
  return { max_tokens: maxTokens, thinking: { type: 'enabled', budget_tokens: budget } };
}
