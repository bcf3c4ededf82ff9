import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../src/translate/chat/types.js';
import { responsesToChat } from '../../../../src/translate/responses/responses-to-chat.js';
import { APPLY_PATCH_FUNCTION, FILE_SEARCH_FUNCTION, planTools, SHELL_FUNCTION } from '../../../../src/translate/responses/tools.js';
import type { ResponsesRequest } from '../../../../src/translate/responses/types.js';

const translate = (request: Partial<ResponsesRequest>): ChatRequest => {
  const full = { model: 'm', input: 'x', ...request } as ResponsesRequest;
  return responsesToChat(full, 'upstream-m', planTools(full.tools));
};

describe('responsesToChat', () => {
  it.each<[string, Partial<ResponsesRequest>, Partial<ChatRequest>]>([
    ['string input → one user message', { input: 'hello' }, { model: 'upstream-m', messages: [{ role: 'user', content: 'hello' }] }],
    ['instructions → leading system message', { instructions: 'be brief', input: 'hi' }, { messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }] }],
    [
      'message roles kept; one text part → string; assistant output_text joined',
      {
        input: [
          { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'dev' }] },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q' }] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a1' }, { type: 'output_text', text: 'a2' }] },
        ],
      },
      { messages: [{ role: 'developer', content: 'dev' }, { role: 'user', content: 'q' }, { role: 'assistant', content: 'a1a2' }] },
    ],
    [
      'images → image_url parts with detail',
      { input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'see' }, { type: 'input_image', image_url: 'https://x/y.png', detail: 'low' }] }] },
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'low' } }] }] },
    ],
    [
      'parallel function calls join one assistant turn; outputs → tool messages',
      {
        input: [
          { type: 'message', role: 'user', content: 'q' },
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":1}' },
          { type: 'function_call', call_id: 'c2', name: 'g', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'one' },
          { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'two' }] },
        ],
      },
      {
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }, { id: 'c2', type: 'function', function: { name: 'g', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'one' },
          { role: 'tool', tool_call_id: 'c2', content: 'two' },
        ],
      },
    ],
    [
      'a call after assistant text joins that turn',
      { input: [{ type: 'message', role: 'assistant', content: 'let me check' }, { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' }, { type: 'function_call_output', call_id: 'c1', output: 'ok' }] },
      { messages: [{ role: 'assistant', content: 'let me check', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c1', content: 'ok' }] },
    ],
    [
      'shell and apply_patch items → calls of their functions and tool results',
      {
        tools: [{ type: 'shell' }, { type: 'apply_patch' }],
        input: [
          { type: 'shell_call', call_id: 's1', action: { commands: ['ls'] } },
          { type: 'shell_call_output', call_id: 's1', output: [{ stdout: 'a.txt', stderr: '', outcome: { type: 'exit', exit_code: 0 } }] },
          { type: 'apply_patch_call', call_id: 'p1', operation: { type: 'delete_file', path: 'a.txt' } },
          { type: 'apply_patch_call_output', call_id: 'p1', status: 'failed', output: 'no such file' },
        ],
      },
      {
        messages: [
          { role: 'assistant', content: null, tool_calls: [{ id: 's1', type: 'function', function: { name: 'shell', arguments: '{"commands":["ls"]}' } }] },
          { role: 'tool', tool_call_id: 's1', content: '[{"stdout":"a.txt","stderr":"","outcome":{"type":"exit","exit_code":0}}]' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'p1', type: 'function', function: { name: 'apply_patch', arguments: '{"type":"delete_file","path":"a.txt"}' } }] },
          { role: 'tool', tool_call_id: 'p1', content: 'failed: no such file' },
        ],
        tools: [
          { type: 'function', function: SHELL_FUNCTION },
          { type: 'function', function: APPLY_PATCH_FUNCTION },
        ],
      },
    ],
    [
      'file_search_call item → the search call and its results',
      { input: [{ type: 'file_search_call', id: 'fs_1', queries: ['cats'], results: [{ file_id: 'file_1', filename: 'a.txt', score: 0.5, text: 'cats purr', attributes: null }] }] },
      {
        messages: [
          { role: 'assistant', content: null, tool_calls: [{ id: 'fs_1', type: 'function', function: { name: 'file_search', arguments: '{"query":"cats"}' } }] },
          { role: 'tool', tool_call_id: 'fs_1', content: 'File search results for "cats":\n\n[1] a.txt (file_id file_1, score 0.500)\ncats purr' },
        ],
      },
    ],
    [
      'namespace tools → flat functions carrying the namespace description; a namespaced call sent back uses the flat name',
      {
        tools: [{ type: 'namespace', name: 'crm', description: 'Customer records.', tools: [{ type: 'function', name: 'find', description: 'Finds one.', parameters: { type: 'object' } }, { type: 'function', name: 'list' }] }],
        input: [
          { type: 'message', role: 'user', content: 'q' },
          { type: 'function_call', call_id: 'c1', name: 'find', namespace: 'crm', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'found' },
        ],
      },
      {
        tools: [
          { type: 'function', function: { name: 'crm__find', description: 'Customer records.\n\nFinds one.', parameters: { type: 'object' } } },
          { type: 'function', function: { name: 'crm__list', description: 'Customer records.' } },
        ],
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'crm__find', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'found' },
        ],
      },
    ],
    [
      'allowed_tools: only the listed tools are offered, its mode is the choice',
      {
        tools: [{ type: 'function', name: 'a' }, { type: 'function', name: 'b' }, { type: 'shell' }, { type: 'namespace', name: 'ns', description: 'd', tools: [{ type: 'function', name: 'c' }] }],
        tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'b' }, { type: 'shell' }, { type: 'namespace', name: 'ns' }] },
      },
      {
        tools: [{ type: 'function', function: { name: 'b' } }, { type: 'function', function: SHELL_FUNCTION }, { type: 'function', function: { name: 'ns__c', description: 'd' } }],
        tool_choice: 'required',
      },
    ],
    [
      'reasoning effort at the nearest hub level',
      { reasoning: { effort: 'xhigh' } },
      { reasoning_effort: 'high' },
    ],
    ['reasoning and web_search_call items are dropped', { input: [{ type: 'reasoning' }, { type: 'message', role: 'user', content: 'q' }, { type: 'web_search_call' }] }, { messages: [{ role: 'user', content: 'q' }] }],
    [
      'parameters mapped',
      { max_output_tokens: 9, temperature: 0.5, top_p: 0.9, frequency_penalty: 1, presence_penalty: -1, stop: ['x'], seed: 3, user: 'u', reasoning: { effort: 'high' } },
      { max_tokens: 9, temperature: 0.5, top_p: 0.9, frequency_penalty: 1, presence_penalty: -1, stop: ['x'], seed: 3, user: 'u', reasoning_effort: 'high' },
    ],
    [
      'function tools, tool_choice and parallel_tool_calls',
      { tools: [{ type: 'function', name: 'f', description: 'does f', parameters: { type: 'object' }, strict: true }], tool_choice: { type: 'function', name: 'f' }, parallel_tool_calls: false },
      { tools: [{ type: 'function', function: { name: 'f', description: 'does f', parameters: { type: 'object' }, strict: true } }], tool_choice: { type: 'function', function: { name: 'f' } }, parallel_tool_calls: false },
    ],
    [
      'tool_choice of a built-in tool names its function',
      { tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }], tool_choice: { type: 'file_search' } },
      { tools: [{ type: 'function', function: FILE_SEARCH_FUNCTION }], tool_choice: { type: 'function', function: { name: 'file_search' } } },
    ],
    ['text.format json_schema → response_format', { text: { format: { type: 'json_schema', name: 'n', schema: { type: 'object' }, strict: true } } }, { response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object' }, strict: true } } }],
    ['text.format json_object → response_format', { text: { format: { type: 'json_object' } } }, { response_format: { type: 'json_object' } }],
  ])('%s', (_name, request, expected) => {
    expect(translate(request)).toMatchObject(expected);
  });

  it('records where each image came from (for error messages)', () => {
    const fields = new Map<string, string>();
    const request = { model: 'm', input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'a' }, { type: 'input_image', image_url: 'ftp://x' }] }] } as ResponsesRequest;
    responsesToChat(request, 'm', planTools(undefined), fields);
    expect([...fields.entries()]).toEqual([['messages[0].content[1].image_url.url', 'input[0].content[1].image_url']]);
  });

  it('sends no tool fields without tools', () => {
    const chat = translate({ tool_choice: 'auto', parallel_tool_calls: true });
    expect(chat.tools).toBeUndefined();
    expect(chat.tool_choice).toBeUndefined();
  });
});
