import { describe, expect, it } from 'vitest';
import { makeUsage, type ChatChunk, type ChunkChoice } from '../../../../src/translate/chat/types.js';
import type { MessageStreamEvent } from '../../../../src/translate/messages/types.js';
import { accumulateMessageEvents } from '../../../../src/translate/stream/accumulate-message-events.js';
import { ChatToMessageEvents } from '../../../../src/translate/stream/chat-to-message-events.js';

function chunk(delta: ChunkChoice['delta'], finish: ChunkChoice['finish_reason'] = null, usage?: ReturnType<typeof makeUsage>): ChatChunk {
  return { id: 'chatcmpl-s1', object: 'chat.completion.chunk', created: 1, model: 'up', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) };
}
const usageChunk = (usage: ReturnType<typeof makeUsage>): ChatChunk => ({ id: 'chatcmpl-s1', object: 'chat.completion.chunk', created: 1, model: 'up', choices: [], usage });

function run(chunks: ChatChunk[], options: Partial<ConstructorParameters<typeof ChatToMessageEvents>[0]> = {}, fallback?: ReturnType<typeof makeUsage>): MessageStreamEvent[] {
  const mapper = new ChatToMessageEvents({ model: 'claude-x', inputTokens: 12, ...options });
  return [...chunks.flatMap((c) => mapper.push(c)), ...mapper.end(fallback)];
}

const compact = (events: MessageStreamEvent[]) =>
  events.map((event) => {
    switch (event.type) {
      case 'content_block_start':
        return `start ${event.index} ${event.content_block.type}${event.content_block.type === 'tool_use' ? ` ${event.content_block.id} ${event.content_block.name}` : ''}`;
      case 'content_block_delta':
        return `delta ${event.index} ${event.delta.type === 'text_delta' ? event.delta.text : event.delta.partial_json}`;
      case 'content_block_stop':
        return `stop ${event.index}`;
      case 'message_delta':
        return `message_delta ${event.delta.stop_reason}`;
      default:
        return event.type;
    }
  });

describe('ChatToMessageEvents', () => {
  it('text stream: message_start with the counted input usage, one text block, final usage in message_delta', () => {
    const events = run([chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop'), usageChunk(makeUsage(11, 2))]);
    expect(compact(events)).toEqual(['message_start', 'start 0 text', 'delta 0 Hel', 'delta 0 lo', 'stop 0', 'message_delta end_turn', 'message_stop']);
    const start = events[0] as Extract<MessageStreamEvent, { type: 'message_start' }>;
    expect(start.message).toMatchObject({ id: 'msg_s1', model: 'claude-x', content: [], stop_reason: null, usage: { input_tokens: 12, output_tokens: 0 } });
    expect(events.at(-2)).toEqual({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: 11, output_tokens: 2, cache_read_input_tokens: 0 } });
  });

  it('no empty leading text block before a tool call', () => {
    const events = run([chunk({ role: 'assistant', content: '' }), chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] }), chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }), chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }), chunk({}, 'tool_calls')]);
    expect(compact(events)).toEqual(['message_start', 'start 0 tool_use call_1 f', 'delta 0 {"a":', 'delta 0 1}', 'stop 0', 'message_delta tool_use', 'message_stop']);
  });

  it('tool arguments whole in one delta, after text', () => {
    const events = run([chunk({ content: 'Checking.' }), chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'get', arguments: '{"city":"Paris"}' } }] }, 'tool_calls')]);
    expect(compact(events)).toEqual(['message_start', 'start 0 text', 'delta 0 Checking.', 'stop 0', 'start 1 tool_use c1 get', 'delta 1 {"city":"Paris"}', 'stop 1', 'message_delta tool_use', 'message_stop']);
    expect(accumulateMessageEvents(events).content).toEqual([
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'c1', name: 'get', input: { city: 'Paris' } },
    ]);
  });

  it('sequential parallel calls stream live, one block each', () => {
    const events = run([
      chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"x":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'b', function: { name: 'g', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(compact(events)).toEqual(['message_start', 'start 0 tool_use a f', 'delta 0 {"x":', 'delta 0 1}', 'stop 0', 'start 1 tool_use b g', 'delta 1 {}', 'stop 1', 'message_delta tool_use', 'message_stop']);
  });

  it('interleaved calls: arguments of an unfinished call are never cut; the other call waits', () => {
    const events = run([
      chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"x":' } }, { index: 1, id: 'b', function: { name: 'g', arguments: '{"y":' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '2}' } }, { index: 0, function: { arguments: '1}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    const message = accumulateMessageEvents(events);
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'a', name: 'f', input: { x: 1 } },
      { type: 'tool_use', id: 'b', name: 'g', input: { y: 2 } },
    ]);
  });

  it('text interleaved with an unfinished call waits for the call', () => {
    const events = run([chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"x":' } }] }), chunk({ content: 'note' }), chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }), chunk({}, 'tool_calls')]);
    expect(compact(events)).toEqual(['message_start', 'start 0 tool_use a f', 'delta 0 {"x":', 'delta 0 1}', 'stop 0', 'start 1 text', 'delta 1 note', 'stop 1', 'message_delta tool_use', 'message_stop']);
  });

  it('tool call deltas without index are matched by id, then continue the latest call', () => {
    const events = run([
      chunk({ tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{"x":' } } as never] }),
      chunk({ tool_calls: [{ function: { arguments: '1}' } } as never] }),
      chunk({ tool_calls: [{ id: 'b', function: { name: 'g', arguments: '{}' } } as never] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(accumulateMessageEvents(events).content).toEqual([
      { type: 'tool_use', id: 'a', name: 'f', input: { x: 1 } },
      { type: 'tool_use', id: 'b', name: 'g', input: {} },
    ]);
  });

  it('length → max_tokens; stop with a matched stop sequence → stop_sequence', () => {
    expect(compact(run([chunk({ content: 'abc' }, 'length')])).at(-2)).toBe('message_delta max_tokens');
    const events = run([chunk({ content: 'abc END' }, 'stop')], { stopSequences: ['END'] });
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: 'stop_sequence', stop_sequence: 'END' } });
  });

  it('usage: reported usage wins; fallback when none; counted input otherwise', () => {
    expect(run([chunk({ content: 'x' }, 'stop', makeUsage(30, 4, 10))]).at(-2)).toMatchObject({ usage: { input_tokens: 20, output_tokens: 4, cache_read_input_tokens: 10 } });
    expect(run([chunk({ content: 'x' }, 'stop')], {}, makeUsage(12, 1)).at(-2)).toMatchObject({ usage: { input_tokens: 12, output_tokens: 1 } });
    expect(run([chunk({ content: 'x' }, 'stop')]).at(-2)).toMatchObject({ usage: { input_tokens: 12, output_tokens: 0 } });
  });

  it('end() without a finish → an error event, nothing after', () => {
    const mapper = new ChatToMessageEvents({ model: 'm', inputTokens: 1 });
    mapper.push(chunk({ content: 'partial' }));
    const tail = mapper.end();
    expect(tail).toEqual([{ type: 'error', error: expect.objectContaining({ type: 'api_error' }) }]);
    expect(mapper.end()).toEqual([]);
    expect(mapper.push(chunk({ content: 'more' }))).toEqual([]);
  });

  it('an empty upstream stream → an error event', () => {
    expect(run([])).toEqual([{ type: 'error', error: expect.objectContaining({ type: 'api_error' }) }]);
  });

  it('fail() emits one error event', () => {
    const mapper = new ChatToMessageEvents({ model: 'm', inputTokens: 1 });
    mapper.push(chunk({ content: 'a' }));
    expect(mapper.fail({ type: 'overloaded_error', message: 'busy' })).toEqual([{ type: 'error', error: { type: 'overloaded_error', message: 'busy' } }]);
    expect(mapper.end()).toEqual([]);
  });

  it('reasoning is not surfaced; other choices ignored', () => {
    const events = run([chunk({ reasoning_content: 'hmm' }), { ...chunk({ content: 'other' }), choices: [{ index: 1, delta: { content: 'other' }, finish_reason: null }] }, chunk({ content: 'ok' }, 'stop')]);
    expect(compact(events)).toEqual(['message_start', 'start 0 text', 'delta 0 ok', 'stop 0', 'message_delta end_turn', 'message_stop']);
  });
});
