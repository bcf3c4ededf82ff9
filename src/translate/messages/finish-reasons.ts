import type { FinishReason } from '../chat/types.js';
import type { MessagesStopReason } from './types.js';

/**
 * Hub finish_reason → message-style stop_reason (spec "Message-style response object").
 *
 * `stop_sequence`: the OpenAI wire does not say which stop sequence ended the output (it strips
 * it), so a `stop` finish is reported as `stop_sequence` only when we can tell: the output text
 * ends with one of the request's stop sequences (servers that keep the matched text, e.g. vLLM's
 * include_stop_str_in_output). Otherwise it is `end_turn` with stop_sequence null — never a guess.
 * content_filter / blocked read as end_turn (the message is complete as sent; the surface has
 * no refusal reason in the spec's list).
 */
export function stopReasonOf(
  finishReason: FinishReason | null,
  outputText: string,
  stopSequences: readonly string[] | undefined,
): { stop_reason: MessagesStopReason; stop_sequence: string | null } {
  switch (finishReason) {
    case 'length':
      return { stop_reason: 'max_tokens', stop_sequence: null };
    case 'tool_calls':
      return { stop_reason: 'tool_use', stop_sequence: null };
    case 'stop': {
      const matched = matchedStopSequence(outputText, stopSequences);
      return matched === undefined ? { stop_reason: 'end_turn', stop_sequence: null } : { stop_reason: 'stop_sequence', stop_sequence: matched };
    }
    default:
      return { stop_reason: 'end_turn', stop_sequence: null };
  }
}

/** The longest request stop sequence the output ends with, if any. */
export function matchedStopSequence(outputText: string, stopSequences: readonly string[] | undefined): string | undefined {
  let matched: string | undefined;
  for (const sequence of stopSequences ?? []) {
    if (sequence !== '' && outputText.endsWith(sequence) && (matched === undefined || sequence.length > matched.length)) matched = sequence;
  }
  return matched;
}
