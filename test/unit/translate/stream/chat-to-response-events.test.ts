import { describe, expect, it } from 'vitest';
import { makeUsage, type ChatChunk, type ChunkChoice } from '../../../../src/translate/chat/types.js';
import { responseSkeleton } from '../../../../src/translate/responses/chat-to-responses.js';
import { planTools } from '../../../../src/translate/responses/tools.js';
import type { ResponsesTool, ResponseStreamEvent } from '../../../../src/translate/responses/types.js';
import { accumulateResponseEvents } from '../../../../src/translate/stream/accumulate-response-events.js';
import { ChatToResponseEvents } from '../../../../src/translate/stream/chat-to-response-events.js';

const chunk = (delta: ChunkChoice['delta'], finish: ChunkChoice['finish_reason'] = null): ChatChunk => ({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const text = (content: string) => chunk({ content });
const tool = (index: number, args: string, id?: string, name?: string) => chunk({ tool_calls: [{ index, ...(id === undefined ? {} : { id }), function: { ...(name === undefined ? {} : { name }), arguments: args } }] });
const finish = (reason: ChunkChoice['finish_reason']) => chunk({}, reason);

const tools: ResponsesTool[] = [{ type: 'function', name: 'f' }, { type: 'function', name: 'g' }, { type: 'shell' }, { type: 'file_search', vector_store_ids: ['vs_1'] }];
const mapperFor = () => new ChatToResponseEvents({ skeleton: responseSkeleton({ model: 'm', input: 'x', tools }, { id: 'resp_t', createdAt: 0, model: 'm' }), tools: planTools(tools) });

function run(chunks: ChatChunk[]): { events: ResponseStreamEvent[]; mapper: ChatToResponseEvents } {
  const mapper = mapperFor();
  const events = chunks.flatMap((next) => mapper.push(next));
  events.push(...mapper.end(makeUsage(3, 4)));
  return { events, mapper };
}
const types = (events: ResponseStreamEvent[]) => events.map((event) => event.type.replace(/^response\./, ''));

describe('ChatToResponseEvents', () => {
  it.each<[string, ChatChunk[], string[], unknown[]]>([
    [
      'text',
      [chunk({ role: 'assistant', content: '' }), text('Hel'), text('lo'), finish('stop')],
      ['created', 'in_progress', 'output_item.added', 'content_part.added', 'output_text.delta', 'output_text.delta', 'output_text.done', 'content_part.done', 'output_item.done', 'completed'],
      [{ type: 'message', id: 'msg_t_0', status: 'completed', content: [{ type: 'output_text', text: 'Hello' }] }],
    ],
    [
      'function call with split arguments',
      [tool(0, '', 'call_1', 'f'), tool(0, '{"a"'), tool(0, ':1}'), finish('tool_calls')],
      ['created', 'in_progress', 'output_item.added', 'function_call_arguments.delta', 'function_call_arguments.delta', 'function_call_arguments.done', 'output_item.done', 'completed'],
      [{ type: 'function_call', id: 'fc_t_0', call_id: 'call_1', name: 'f', arguments: '{"a":1}', status: 'completed' }],
    ],
    [
      'text then two parallel calls',
      [text('Checking.'), tool(0, '{}', 'c1', 'f'), tool(1, '{"x":2}', 'c2', 'g'), finish('tool_calls')],
      ['created', 'in_progress', 'output_item.added', 'content_part.added', 'output_text.delta', 'output_text.done', 'content_part.done', 'output_item.done', 'output_item.added', 'function_call_arguments.delta', 'function_call_arguments.done', 'output_item.done', 'output_item.added', 'function_call_arguments.delta', 'function_call_arguments.done', 'output_item.done', 'completed'],
      [{ type: 'message', content: [{ text: 'Checking.' }] }, { type: 'function_call', call_id: 'c1' }, { type: 'function_call', call_id: 'c2', arguments: '{"x":2}' }],
    ],
    [
      'a second call interleaved before the first completes is queued',
      [tool(0, '{"a":', 'c1', 'f'), tool(1, '{}', 'c2', 'g'), tool(0, '1}'), finish('tool_calls')],
      ['created', 'in_progress', 'output_item.added', 'function_call_arguments.delta', 'function_call_arguments.delta', 'function_call_arguments.done', 'output_item.done', 'output_item.added', 'function_call_arguments.delta', 'function_call_arguments.done', 'output_item.done', 'completed'],
      [{ type: 'function_call', call_id: 'c1', arguments: '{"a":1}' }, { type: 'function_call', call_id: 'c2', arguments: '{}' }],
    ],
    [
      'shell call held until the turn finishes, then sent whole',
      [tool(0, '{"commands":', 'c1', 'shell'), tool(0, '["ls"]}'), finish('tool_calls')],
      ['created', 'in_progress', 'output_item.added', 'output_item.done', 'completed'],
      [{ type: 'shell_call', id: 'sh_t_0', call_id: 'c1', action: { commands: ['ls'], timeout_ms: null, max_output_length: null }, status: 'completed' }],
    ],
    [
      'reasoning then text → a reasoning item, then the message',
      [chunk({ reasoning_content: 'Think' }), chunk({ reasoning_content: 'ing.' }), text('Done.'), finish('stop')],
      ['created', 'in_progress', 'output_item.added', 'content_part.added', 'reasoning_text.delta', 'reasoning_text.delta', 'reasoning_text.done', 'content_part.done', 'output_item.done', 'output_item.added', 'content_part.added', 'output_text.delta', 'output_text.done', 'content_part.done', 'output_item.done', 'completed'],
      [{ type: 'reasoning', id: 'rs_t_0', summary: [], content: [{ type: 'reasoning_text', text: 'Thinking.' }] }, { type: 'message', id: 'msg_t_1', content: [{ text: 'Done.' }] }],
    ],
    [
      'length → message incomplete, response completed',
      [text('a b'), finish('length')],
      ['created', 'in_progress', 'output_item.added', 'content_part.added', 'output_text.delta', 'output_text.done', 'content_part.done', 'output_item.done', 'completed'],
      [{ type: 'message', status: 'incomplete' }],
    ],
    [
      'content filter → response.failed',
      [text('a'), finish('content_filter')],
      ['created', 'in_progress', 'output_item.added', 'content_part.added', 'output_text.delta', 'output_text.done', 'content_part.done', 'output_item.done', 'failed'],
      [{ type: 'message', status: 'incomplete' }],
    ],
    [
      'upstream cut short (no finish) → error + response.failed',
      [text('a')],
      ['created', 'in_progress', 'output_item.added', 'content_part.added', 'output_text.delta', 'error', 'failed'],
      [],
    ],
  ])('%s', (_name, chunks, expectedTypes, items) => {
    const { events } = run(chunks);
    expect(types(events)).toEqual(expectedTypes);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    const final = events[events.length - 1]! as Extract<ResponseStreamEvent, { response: unknown }>;
    expect(final.response.output).toMatchObject(items);
    if (final.type === 'response.completed') {
      expect(accumulateResponseEvents(events)).toEqual(final.response);
      expect(final.response.usage).toMatchObject({ input_tokens: 3, output_tokens: 4, total_tokens: 7 });
    }
  });

  it('file_search: held for the caller, reported through its own events, then a second turn', () => {
    const mapper = mapperFor();
    const events = [tool(0, '{"query":"cats"}', 'c1', 'file_search'), finish('tool_calls')].flatMap((next) => mapper.push(next));
    expect(mapper.state).toBe('turn_finished');
    expect(mapper.internalCalls.map((call) => call.function.arguments)).toEqual(['{"query":"cats"}']);
    expect(mapper.calledClientTools).toBe(false);
    const started = mapper.fileSearchStarted('cats');
    events.push(...started.events);
    events.push(...mapper.fileSearchCompleted(started.handle, [{ file_id: 'file_1', filename: 'a.txt', score: 0.9, text: 'cats purr', attributes: null }]));
    mapper.nextTurn();
    events.push(...[text('They purr.'), finish('stop')].flatMap((next) => mapper.push(next)));
    events.push(...mapper.end(makeUsage(1, 1), { billing_cost: { credits: '0' } }));
    expect(types(events)).toEqual([
      'created', 'in_progress',
      'output_item.added', 'file_search_call.in_progress', 'file_search_call.searching', 'file_search_call.completed', 'output_item.done',
      'output_item.added', 'content_part.added', 'output_text.delta', 'output_text.done', 'content_part.done', 'output_item.done',
      'completed',
    ]);
    const final = accumulateResponseEvents(events);
    expect(final.output).toMatchObject([
      { type: 'file_search_call', id: 'fs_t_0', queries: ['cats'], status: 'completed', results: [{ file_id: 'file_1' }] },
      { type: 'message', id: 'msg_t_1', content: [{ text: 'They purr.' }] },
    ]);
    expect(final['billing_cost']).toEqual({ credits: '0' });
  });

  it('fail before any chunk still opens the response (recorded order: created, in_progress, error, failed)', () => {
    const mapper = mapperFor();
    const events = mapper.fail({ code: 'INFERENCE_3105', message: 'boom' });
    expect(types(events)).toEqual(['created', 'in_progress', 'error', 'failed']);
    expect(events[2]).toMatchObject({ code: 'INFERENCE_3105', message: 'boom', error: { code: 'INFERENCE_3105' } });
    expect(events[3]).toMatchObject({ response: { status: 'failed', error: { code: 'INFERENCE_3105', message: 'boom' } } });
    expect(mapper.push(text('late'))).toEqual([]);
  });
});
