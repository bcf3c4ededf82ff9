import { describe, expect, it } from 'vitest';
import { makeUsage, type ChatResponse, type FinishReason, type ToolCall } from '../../../../src/translate/chat/types.js';
import { chatToMessages, messageIdFor, parseToolInput } from '../../../../src/translate/messages/chat-to-messages.js';

function response(content: string | null, finish: FinishReason | null, toolCalls: ToolCall[] | null = null, usage = makeUsage(10, 5)): ChatResponse {
  return {
    id: 'chatcmpl-abc',
    object: 'chat.completion',
    created: 1,
    model: 'upstream-model',
    system_fingerprint: null,
    usage,
    choices: [{ index: 0, message: { role: 'assistant', content, tool_calls: toolCalls }, finish_reason: finish, logprobs: null }],
  };
}

describe('chatToMessages', () => {
  it('text answer: id, echoed model, end_turn, usage', () => {
    expect(chatToMessages(response('Hello', 'stop'), { model: 'claude-sonnet-4' })).toEqual({
      id: 'msg_abc',
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello' }],
      model: 'claude-sonnet-4',
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0 },
    });
  });

  const stopCases: Array<[FinishReason | null, string, string[] | undefined, string, string | null]> = [
    ['stop', 'Hi', undefined, 'end_turn', null],
    ['length', 'Hi', undefined, 'max_tokens', null],
    ['tool_calls', 'Hi', undefined, 'tool_use', null],
    ['content_filter', 'Hi', undefined, 'end_turn', null],
    ['stop', 'Hi', ['END'], 'end_turn', null],
    ['stop', 'Hi END', ['END', 'D'], 'stop_sequence', 'END'],
    ['length', 'Hi END', ['END'], 'max_tokens', null],
  ];
  for (const [finish, text, stops, reason, sequence] of stopCases) {
    it(`finish ${finish} (text ${JSON.stringify(text)}, stops ${JSON.stringify(stops)}) → ${reason}`, () => {
      const message = chatToMessages(response(text, finish), { model: 'm', ...(stops === undefined ? {} : { stopSequences: stops }) });
      expect(message.stop_reason).toBe(reason);
      expect(message.stop_sequence).toBe(sequence);
    });
  }

  it('tool calls → tool_use blocks after the text, input parsed', () => {
    const message = chatToMessages(
      response('Let me check.', 'tool_calls', [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_2', type: 'function', function: { name: 'noop', arguments: '' } },
      ]),
      { model: 'm' },
    );
    expect(message.content).toEqual([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_2', name: 'noop', input: {} },
    ]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('no empty text block when there is no text', () => {
    const message = chatToMessages(response(null, 'tool_calls', [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }]), { model: 'm' });
    expect(message.content).toEqual([{ type: 'tool_use', id: 'c', name: 'f', input: {} }]);
    expect(chatToMessages(response('', 'stop'), { model: 'm' }).content).toEqual([]);
  });

  it('cached prompt tokens → cache_read_input_tokens, excluded from input_tokens', () => {
    expect(chatToMessages(response('x', 'stop', null, makeUsage(100, 7, 60)), { model: 'm' }).usage).toEqual({ input_tokens: 40, output_tokens: 7, cache_read_input_tokens: 60 });
  });

  it('parseToolInput: objects kept, anything else → {}', () => {
    expect(parseToolInput('{"a":1}')).toEqual({ a: 1 });
    expect(parseToolInput('')).toEqual({});
    expect(parseToolInput('{"a":')).toEqual({});
    expect(parseToolInput('[1]')).toEqual({});
    expect(parseToolInput('"s"')).toEqual({});
  });

  it('message ids', () => {
    expect(messageIdFor('chatcmpl-9x')).toBe('msg_9x');
    expect(messageIdFor('')).toBe('msg_0');
  });
});
