import { parseToolInput } from '../messages/chat-to-messages.js';
import type { MessagesResponse, MessagesResponseBlock, MessageStreamEvent } from '../messages/types.js';

/**
 * Folds message-style stream events into the message they describe (the reducer the official
 * SDK's finalMessage() runs), with tool input parsed by the same rule as the non-stream answer.
 * Throws on an `error` event or on events out of order, so tests see broken streams.
 */
export function accumulateMessageEvents(events: Iterable<MessageStreamEvent>): MessagesResponse {
  let message: MessagesResponse | undefined;
  const toolJson = new Map<number, string>();
  let stopped = false;
  for (const event of events) {
    if (event.type === 'error') throw new Error(`error event: ${event.error.message}`);
    if (event.type === 'message_start') {
      if (message !== undefined) throw new Error('second message_start');
      message = { ...event.message, content: [], usage: { ...event.message.usage } };
      continue;
    }
    if (message === undefined) throw new Error(`${event.type} before message_start`);
    if (stopped) throw new Error(`${event.type} after message_stop`);
    switch (event.type) {
      case 'content_block_start': {
        if (event.index !== message.content.length) throw new Error(`block ${event.index} started out of order`);
        const started = event.content_block;
        const block: MessagesResponseBlock = started.type === 'text' ? { type: 'text', text: '' } : started.type === 'mcp_tool_result' ? { ...started } : { ...started, input: {} };
        message.content.push(block);
        if (block.type === 'tool_use' || block.type === 'mcp_tool_use') toolJson.set(event.index, '');
        break;
      }
      case 'content_block_delta': {
        const block = message.content[event.index];
        if (block === undefined) throw new Error(`delta for unknown block ${event.index}`);
        if (event.delta.type === 'text_delta' && block.type === 'text') block.text += event.delta.text;
        else if (event.delta.type === 'input_json_delta' && (block.type === 'tool_use' || block.type === 'mcp_tool_use')) toolJson.set(event.index, (toolJson.get(event.index) ?? '') + event.delta.partial_json);
        else throw new Error(`${event.delta.type} for a ${block.type} block`);
        break;
      }
      case 'content_block_stop': {
        const block = message.content[event.index];
        if (block?.type === 'tool_use' || block?.type === 'mcp_tool_use') block.input = parseToolInput(toolJson.get(event.index) ?? '');
        break;
      }
      case 'message_delta':
        message.stop_reason = event.delta.stop_reason;
        message.stop_sequence = event.delta.stop_sequence;
        message.usage = { ...event.usage };
        break;
      case 'message_stop':
        stopped = true;
        break;
    }
  }
  if (message === undefined || !stopped) throw new Error('stream did not end with message_stop');
  return message;
}
