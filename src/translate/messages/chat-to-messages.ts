import type { ChatResponse, ToolCall } from '../chat/types.js';
import { stopReasonOf } from './finish-reasons.js';
import type { MessagesResponse, MessagesResponseBlock } from './types.js';
import { toMessagesUsage } from './usage.js';

export interface ChatToMessagesOptions {
  /** The model string the client sent (spec: the response echoes it). */
  model: string;
  /** The message id; default `msg_` + the hub id. */
  id?: string;
  /** The request's stop_sequences, to recognise a `stop_sequence` stop (see finish-reasons.ts). */
  stopSequences?: readonly string[];
}

/**
 * Hub ChatResponse → message-style response object. Blocks: one text block (when there is
 * text; a refusal counts as text) and then one tool_use block per tool call with the arguments
 * parsed (see parseToolInput for arguments that are not a JSON object).
 */
export function chatToMessages(response: ChatResponse, options: ChatToMessagesOptions): MessagesResponse {
  const choice = response.choices[0];
  const text = choice?.message.content ?? choice?.message.refusal ?? '';
  const content: MessagesResponseBlock[] = [];
  if (text !== '') content.push({ type: 'text', text });
  for (const call of choice?.message.tool_calls ?? []) content.push(toolUseBlock(call));
  const { stop_reason, stop_sequence } = stopReasonOf(choice?.finish_reason ?? null, text, options.stopSequences);
  return {
    id: options.id ?? messageIdFor(response.id),
    type: 'message',
    role: 'assistant',
    content,
    model: options.model,
    stop_reason,
    stop_sequence,
    usage: toMessagesUsage(response.usage),
  };
}

/** `msg_` + the hub id (its own prefix stripped): stable and unique per upstream answer. */
export function messageIdFor(hubId: string): string {
  const bare = hubId.replace(/^(chatcmpl-|msg_)/, '').replace(/[^A-Za-z0-9_-]/g, '');
  return `msg_${bare === '' ? '0' : bare}`;
}

function toolUseBlock(call: ToolCall): MessagesResponseBlock {
  return { type: 'tool_use', id: call.id, name: call.function.name, input: parseToolInput(call.function.arguments) };
}

/**
 * Tool arguments → tool_use `input`. The surface requires an object: empty arguments become {};
 * arguments that are not a JSON object (malformed JSON from a weak model, or an array/scalar)
 * also become {} — the client's tool then reports missing parameters, which is recoverable,
 * whereas a non-object `input` breaks every Anthropic client's types. The same rule folds
 * streamed input_json_delta text (stream/accumulate-message-events.ts).
 */
export function parseToolInput(argumentsText: string): Record<string, unknown> {
  if (argumentsText.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
