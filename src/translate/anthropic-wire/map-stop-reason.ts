import type { FinishReason } from '../chat/types.js';

/**
 * Anthropic stop_reason → hub finish_reason. `tool_use` means "the client must run tools" —
 * except when the only tool was igw's forced structured-output tool, whose input is the answer.
 * Reasons newer than this table (pause_turn, …) read as `stop`: the message is complete as sent.
 */
export function mapStopReason(reason: string | null | undefined, answeredByStructuredOutputTool = false): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return answeredByStructuredOutputTool ? 'stop' : 'tool_calls';
    case 'refusal':
      return 'content_filter';
    case 'end_turn':
    case 'stop_sequence':
    default:
      return 'stop';
  }
}
