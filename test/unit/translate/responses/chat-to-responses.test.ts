import { describe, expect, it } from 'vitest';
import { makeUsage, type ChatResponse, type FinishReason, type ToolCall } from '../../../../src/translate/chat/types.js';
import { finishResponse, responseSkeleton, turnOutput } from '../../../../src/translate/responses/chat-to-responses.js';
import { planTools } from '../../../../src/translate/responses/tools.js';
import type { ResponsesRequest, ResponsesTool } from '../../../../src/translate/responses/types.js';

const hub = (content: string | null, toolCalls: ToolCall[] | null, finish: FinishReason, refusal?: string): ChatResponse => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'up',
  choices: [{ index: 0, message: { role: 'assistant', content, tool_calls: toolCalls, ...(refusal === undefined ? {} : { refusal }) }, finish_reason: finish, logprobs: null }],
  usage: makeUsage(10, 5, 2, 1),
  system_fingerprint: null,
});
const call = (id: string, name: string, args: string): ToolCall => ({ id, type: 'function', function: { name, arguments: args } });
const tools: ResponsesTool[] = [{ type: 'function', name: 'f' }, { type: 'shell' }, { type: 'apply_patch' }, { type: 'file_search', vector_store_ids: ['vs_1'] }];

describe('turnOutput', () => {
  it.each<[string, ChatResponse, unknown[], string[]]>([
    ['text → one message item', hub('hi', null, 'stop'), [{ type: 'message', id: 'msg_abc_0', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'hi', annotations: [] }] }], []],
    [
      'reasoning_content → a reasoning item before the message',
      { ...hub('answer', null, 'stop'), choices: [{ index: 0, message: { role: 'assistant', content: 'answer', tool_calls: null, reasoning_content: 'hmm' }, finish_reason: 'stop', logprobs: null }] },
      [{ type: 'reasoning', id: 'rs_abc_0', content: [{ type: 'reasoning_text', text: 'hmm' }] }, { type: 'message', id: 'msg_abc_1' }],
      [],
    ],
    ['length → incomplete message', hub('h', null, 'length'), [{ type: 'message', status: 'incomplete' }], []],
    ['refusal → message text', hub(null, null, 'stop', 'no'), [{ type: 'message', content: [{ type: 'output_text', text: 'no' }] }], []],
    [
      'text then function call',
      hub('checking', [call('call_1', 'f', '{"a":1}')], 'tool_calls'),
      [{ type: 'message', id: 'msg_abc_0' }, { type: 'function_call', id: 'fc_abc_1', call_id: 'call_1', name: 'f', arguments: '{"a":1}', status: 'completed' }],
      [],
    ],
    [
      'shell call → shell_call item',
      hub(null, [call('call_s', 'shell', '{"commands":["ls -la","pwd"],"timeout_ms":500}')], 'tool_calls'),
      [{ type: 'shell_call', id: 'sh_abc_0', call_id: 'call_s', action: { commands: ['ls -la', 'pwd'], timeout_ms: 500, max_output_length: null }, environment: null, status: 'completed' }],
      [],
    ],
    [
      'apply_patch call → apply_patch_call item',
      hub(null, [call('call_p', 'apply_patch', '{"type":"create_file","path":"a.md","diff":"+hi"}')], 'tool_calls'),
      [{ type: 'apply_patch_call', id: 'apc_abc_0', call_id: 'call_p', operation: { type: 'create_file', path: 'a.md', diff: '+hi' }, status: 'completed' }],
      [],
    ],
    ['file_search call is held for igw to run', hub(null, [call('call_f', 'file_search', '{"query":"q"}')], 'tool_calls'), [], ['call_f']],
  ])('%s', (_name, response, items, internal) => {
    const output = turnOutput(response, planTools(tools), 'resp_abc', 0);
    expect(output.items).toMatchObject(items);
    expect(output.items).toHaveLength(items.length);
    expect(output.internalCalls.map((held) => held.id)).toEqual(internal);
  });

  it('a call of a namespace function → function_call with its own name and namespace', () => {
    const plan = planTools([{ type: 'namespace', name: 'crm', description: 'd', tools: [{ type: 'function', name: 'find' }] }, { type: 'function', name: 'crm__x' }]);
    const output = turnOutput(hub(null, [call('c1', 'crm__find', '{}'), call('c2', 'crm__x', '{}')], 'tool_calls'), plan, 'resp_abc', 0);
    expect(output.items).toEqual([
      { type: 'function_call', id: 'fc_abc_0', call_id: 'c1', name: 'find', namespace: 'crm', arguments: '{}', status: 'completed' },
      { type: 'function_call', id: 'fc_abc_1', call_id: 'c2', name: 'crm__x', arguments: '{}', status: 'completed' },
    ]);
  });

  it('a call of a custom tool → custom_tool_call with the text of its input argument', () => {
    const plan = planTools([{ type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: x' } }, { type: 'namespace', name: 'ns', description: 'd', tools: [{ type: 'custom', name: 'raw' }] }]);
    const output = turnOutput(hub(null, [call('c1', 'apply_patch', '{"input":"*** Begin Patch"}'), call('c2', 'ns__raw', '{"input":"x"}')], 'tool_calls'), plan, 'resp_abc', 0);
    expect(output.items).toEqual([
      { type: 'custom_tool_call', id: 'ctc_abc_0', call_id: 'c1', name: 'apply_patch', input: '*** Begin Patch', status: 'completed' },
      { type: 'custom_tool_call', id: 'ctc_abc_1', call_id: 'c2', name: 'raw', namespace: 'ns', input: 'x', status: 'completed' },
    ]);
  });

  it('numbers items from the given output index', () => {
    expect(turnOutput(hub('x', null, 'stop'), planTools(tools), 'resp_abc', 3).items[0]!).toMatchObject({ id: 'msg_abc_3' });
  });
});

describe('finishResponse', () => {
  const skeleton = responseSkeleton({ model: 'm', input: 'x', temperature: 0.3, store: true } as ResponsesRequest & { store: boolean }, { id: 'resp_1', createdAt: 5, model: 'm' });

  it('echoes the request and never stores', () => {
    expect(skeleton).toMatchObject({ id: 'resp_1', object: 'response', created_at: 5, model: 'm', status: 'in_progress', store: false, temperature: 0.3, tool_choice: 'auto', previous_response_id: null, usage: null, output: [] });
  });

  it.each<[string, FinishReason, object | undefined, object]>([
    ['stop → completed', 'stop', undefined, { status: 'completed', error: null, incomplete_details: null }],
    ['tool_calls → completed', 'tool_calls', undefined, { status: 'completed', error: null }],
    ['length → completed, incomplete_details max_output_tokens', 'length', undefined, { status: 'completed', incomplete_details: { reason: 'max_output_tokens' } }],
    ['content_filter → failed', 'content_filter', undefined, { status: 'failed', error: { code: 'INFERENCE_3208' } }],
    ['provider error after start → failed', 'stop', { code: 'INFERENCE_3105', message: 'boom' }, { status: 'failed', error: { code: 'INFERENCE_3105', message: 'boom' } }],
  ])('%s', (_name, finish, error, expected) => {
    expect(finishResponse(skeleton, [], finish, makeUsage(10, 5, 2, 1), error as never)).toMatchObject(expected);
  });

  it('maps usage with cached and reasoning details', () => {
    expect(finishResponse(skeleton, [], 'stop', makeUsage(10, 5, 2, 1)).usage).toEqual({
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 2 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 1 },
      total_tokens: 15,
    });
  });
});
