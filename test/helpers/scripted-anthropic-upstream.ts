import { instanceFor } from '../../src/providers/local/json-schema-instance.js';
import type { FakeHandler, FakeReply, FakeRequest } from './fake-upstream.js';
import type { ScriptedCall } from './scripted-chat-upstream.js';

/**
 * A scripted Anthropic Messages model for the client tests on the native pass-through path:
 * enough of a model for a client's tool loop to run through igw unchanged, in the Messages
 * wire's JSON and SSE forms (event names, content blocks, input_json_delta, message_delta usage).
 * - the last user turn carries a tool_result → it answers `tool said: <result>`;
 * - tool_choice names a tool → it calls it with arguments valid against the tool's schema
 *   (the same generator local-echo uses: how clients' JSON-tool structured output is served);
 * - tools are offered, tool_choice is not "none" and `callFor(tools)` picks a call → it calls it;
 * - output_config.format / output_format → JSON valid against that schema;
 * - otherwise it answers with the last user text.
 */
interface MessagesBody {
  model: string;
  stream?: boolean;
  messages: Array<{ role: string; content: unknown }>;
  tools?: Array<{ name: string; type?: string; input_schema?: unknown }>;
  tool_choice?: { type: string; name?: string };
  output_config?: { format?: { schema: unknown } | null };
  output_format?: { schema: unknown } | null;
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

export function scriptedMessagesModel(callFor: (toolNames: string[]) => ScriptedCall | undefined): FakeHandler {
  return (request: FakeRequest): FakeReply => {
    const body = request.body as MessagesBody;
    const block = answer(body, callFor);
    const stopReason = block.type === 'tool_use' ? 'tool_use' : 'end_turn';
    const usage = { input_tokens: 12, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    const message = { id: `msg_scripted_${body.messages.length}`, type: 'message', role: 'assistant', model: body.model };
    if (body.stream !== true) return { json: { ...message, content: [block], stop_reason: stopReason, stop_sequence: null, usage } };

    const events: Array<Record<string, unknown>> = [
      { type: 'message_start', message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } },
    ];
    if (block.type === 'text') {
      events.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      // Word by word, as a model streams.
      for (const piece of block.text.match(/\S+\s*/g) ?? [block.text]) events.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
    } else {
      events.push({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      const json = JSON.stringify(block.input);
      const half = Math.ceil(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)]) events.push({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: part } });
    }
    events.push({ type: 'content_block_stop', index: 0 });
    events.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    events.push({ type: 'message_stop' });
    return { rawSse: events.map((event) => `event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`).join('') };
  };
}

function answer(body: MessagesBody, callFor: (toolNames: string[]) => ScriptedCall | undefined): Block {
  const last = body.messages[body.messages.length - 1];
  const toolResult = Array.isArray(last?.content) ? (last.content as Array<{ type: string; content?: unknown }>).find((block) => block.type === 'tool_result') : undefined;
  if (toolResult !== undefined) return { type: 'text', text: `tool said: ${textOf(toolResult.content)}` };
  const lastUserText = textOf([...body.messages].reverse().find((message) => message.role === 'user')?.content);
  const tools = (body.tools ?? []).filter((tool) => tool.input_schema !== undefined);
  const id = `toolu_scripted_${body.messages.length}`;
  const forced = body.tool_choice?.type === 'tool' ? tools.find((tool) => tool.name === body.tool_choice?.name) : body.tool_choice?.type === 'any' && tools.length === 1 ? tools[0] : undefined;
  if (forced !== undefined) return { type: 'tool_use', id, name: forced.name, input: instanceFor(forced.input_schema, lastUserText) };
  const call = tools.length > 0 && body.tool_choice?.type !== 'none' ? callFor(tools.map((tool) => tool.name)) : undefined;
  if (call !== undefined) return { type: 'tool_use', id, name: call.name, input: call.arguments };
  const format = body.output_config?.format ?? body.output_format;
  if (format !== undefined && format !== null) return { type: 'text', text: JSON.stringify(instanceFor(format.schema, lastUserText)) };
  return { type: 'text', text: lastUserText };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? '').join('');
  return '';
}
