import type { FakeHandler, FakeReply, FakeRequest } from './fake-upstream.js';

/**
 * A scripted OpenAI chat-completions model for the client conformance tests: enough of a model
 * for a client's tool loop to run through igw unchanged, in the OpenAI wire's JSON and SSE forms.
 * - the last message is a tool result → it answers `tool said: <result>`;
 * - tools are offered, tool_choice is not "none" and `callFor(tools)` picks a call → it calls it;
 * - otherwise it answers with the last user text.
 */
export interface ScriptedCall {
  name: string;
  arguments: Record<string, unknown>;
}

export function scriptedChatModel(callFor: (toolNames: string[]) => ScriptedCall | undefined): FakeHandler {
  return (request: FakeRequest): FakeReply => {
    const body = request.body as { model: string; stream?: boolean; messages: Array<{ role: string; content: unknown }>; tools?: Array<{ function: { name: string } }>; tool_choice?: unknown };
    const last = body.messages[body.messages.length - 1];
    const toolNames = (body.tools ?? []).map((tool) => tool.function.name);
    const call = last?.role !== 'tool' && toolNames.length > 0 && body.tool_choice !== 'none' ? callFor(toolNames) : undefined;
    const text = last?.role === 'tool' ? `tool said: ${textOf(last.content)}` : textOf([...body.messages].reverse().find((message) => message.role === 'user')?.content);
    const toolCall = call === undefined ? undefined : { id: `call_${toolNames.indexOf(call.name)}_${body.messages.length}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } };
    const finish = toolCall === undefined ? 'stop' : 'tool_calls';
    const usage = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };
    const base = { id: 'chatcmpl-scripted', created: 1_700_000_000, model: body.model };
    if (body.stream !== true) {
      const message = toolCall === undefined ? { role: 'assistant', content: text } : { role: 'assistant', content: null, tool_calls: [toolCall] };
      return { json: { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage } };
    }
    const chunk = (delta: unknown, finishReason: string | null = null) => JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] });
    const frames = [chunk({ role: 'assistant', content: '' })];
    if (toolCall === undefined) {
      // Word by word, as a model streams.
      for (const piece of text.match(/\S+\s*/g) ?? [text]) frames.push(chunk({ content: piece }));
    } else {
      const args = toolCall.function.arguments;
      frames.push(chunk({ tool_calls: [{ index: 0, id: toolCall.id, type: 'function', function: { name: toolCall.function.name, arguments: '' } }] }));
      frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, Math.ceil(args.length / 2)) } }] }));
      frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(Math.ceil(args.length / 2)) } }] }));
    }
    frames.push(chunk({}, finish));
    frames.push(JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage }));
    return { sse: frames };
  };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? '').join('');
  return '';
}
