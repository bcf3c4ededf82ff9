import type { ChatRequest } from './types.js';

/** Every reasoning effort OpenAI's SDK declares (`Shared.ReasoningEffort`, openai 6.49). */
export const SURFACE_REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type SurfaceReasoningEffort = (typeof SURFACE_REASONING_EFFORTS)[number];

/**
 * A surface effort as the hub's three levels: the nearest one (minimal → low, xhigh and max →
 * high); `none` asks for no reasoning, which is the hub's default (no effort sent).
 */
export function hubReasoningEffort(effort: SurfaceReasoningEffort): ChatRequest['reasoning_effort'] {
  switch (effort) {
    case 'none':
      return undefined;
    case 'minimal':
      return 'low';
    case 'xhigh':
    case 'max':
      return 'high';
    default:
      return effort;
  }
}
