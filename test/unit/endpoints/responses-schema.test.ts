import { describe, expect, it } from 'vitest';
import { parseResponsesBody } from '../../../src/endpoints/validation/responses-schema.js';
import { gatewayErrorOf } from '../../helpers/thrown.js';

const base = { model: 'local-echo' };

describe('POST /v1/responses validation', () => {
  it.each([
    ['string input', { ...base, input: 'hi' }],
    ['easy messages (no type) of every role', { ...base, input: [{ role: 'system', content: 's' }, { role: 'developer', content: 'd' }, { role: 'user', content: 'u' }, { role: 'assistant', content: 'a' }] }],
    ['typed user message with text and image parts', { ...base, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'x' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'low' }] }] }],
    ['assistant output message sent back', { ...base, input: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'x', annotations: [] }] }] }],
    ['function_call + function_call_output', { ...base, input: [{ type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' }, { type: 'function_call_output', call_id: 'c1', output: 'ok' }] }],
    ['shell and apply_patch round trip items', { ...base, input: [
      { type: 'shell_call', call_id: 's1', action: { commands: ['ls'] } },
      { type: 'shell_call_output', call_id: 's1', output: [{ stdout: 'a', stderr: '', outcome: { type: 'exit', exit_code: 0 } }] },
      { type: 'apply_patch_call', call_id: 'p1', status: 'completed', operation: { type: 'delete_file', path: 'a.txt' } },
      { type: 'apply_patch_call_output', call_id: 'p1', status: 'completed' },
    ] }],
    ['every sampling parameter at its bounds', { ...base, input: 'x', temperature: 2, top_p: 0, frequency_penalty: -2, presence_penalty: 2, stop: ['a', 'b'], seed: 7, user: 'u', max_output_tokens: 5, reasoning: { effort: 'low' }, parallel_tool_calls: false }],
    ['store true is accepted', { ...base, input: 'x', store: true }],
    ['supported tools', { ...base, input: 'x', tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }, { type: 'shell' }, { type: 'apply_patch' }, { type: 'web_search', search_context_size: 'low' }], tool_choice: { type: 'function', name: 'f' } }],
    ['namespace tool, namespaced call sent back, Codex extras', { ...base, input: [{ type: 'function_call', call_id: 'c1', name: 'find', namespace: 'crm', arguments: '{}' }], tools: [{ type: 'namespace', name: 'crm', description: 'd', tools: [{ type: 'function', name: 'find', strict: false, parameters: { type: 'object' }, defer_loading: true }] }], client_metadata: { 'x-codex-turn-metadata': '{}' }, prompt_cache_key: null, include: ['reasoning.encrypted_content'], reasoning: { summary: 'auto' } }],
    ['custom tools (top level and in a namespace), tool_search, their items sent back', { ...base, tools: [{ type: 'custom', name: 'apply_patch', description: 'd', format: { type: 'grammar', syntax: 'lark', definition: 'start: x' } }, { type: 'tool_search', execution: 'client', parameters: { type: 'object' } }, { type: 'namespace', name: 'ns', description: 'd', tools: [{ type: 'custom', name: 'raw' }] }], tool_choice: { type: 'custom', name: 'apply_patch' }, input: [
      { type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch', input: 'x' },
      { type: 'custom_tool_call_output', call_id: 'c1', output: 'ok' },
      { type: 'tool_search_call', call_id: 's1', arguments: { query: 'q' }, execution: 'client' },
      { type: 'tool_search_output', call_id: 's1', tools: [], execution: 'client' },
    ] }],
    ['SDK extras', { ...base, input: 'x', metadata: { a: 'b' }, truncation: 'disabled', text: { format: { type: 'text' }, verbosity: 'medium' }, include: ['file_search_call.results'], background: false }],
  ])('accepts %s', (_name, body) => {
    expect(() => parseResponsesBody(structuredClone(body))).not.toThrow();
  });

  it.each([
    ['previous_response_id', { ...base, input: 'x', previous_response_id: 'resp_1' }, 'VALIDATION_4001', 'previous_response_id'],
    ['conversation', { ...base, input: 'x', conversation: 'conv_1' }, 'VALIDATION_4005', 'conversation'],
    ['background true', { ...base, input: 'x', background: true }, 'VALIDATION_4005', 'background'],
    ['item_reference', { ...base, input: [{ role: 'user', content: 'x' }, { type: 'item_reference', id: 'msg_1' }] }, 'VALIDATION_4005', 'input[1].type'],
    ['computer_use tool', { ...base, input: 'x', tools: [{ type: 'computer_use' }] }, 'VALIDATION_4005', 'tools[0].type'],
    ['code_interpreter tool', { ...base, input: 'x', tools: [{ type: 'function', name: 'f' }, { type: 'code_interpreter', container: { type: 'auto' } }] }, 'VALIDATION_4005', 'tools[1].type'],
    ['mcp tool with a label that is not a name', { ...base, input: 'x', tools: [{ type: 'mcp', server_label: 'a b' }] }, 'VALIDATION_4005', 'tools[0].server_label'],
    ['two mcp tools with one label', { ...base, input: 'x', tools: [{ type: 'mcp', server_label: 'a' }, { type: 'mcp', server_label: 'a', server_url: 'https://example.com/mcp' }] }, 'VALIDATION_4005', 'tools[1].server_label'],
    ['tool_choice naming an absent mcp server', { ...base, input: 'x', tools: [{ type: 'mcp', server_label: 'a' }], tool_choice: { type: 'mcp', server_label: 'b' } }, 'VALIDATION_4005', 'tool_choice'],
    ['unknown tool type', { ...base, input: 'x', tools: [{ type: 'image_generation' }] }, 'VALIDATION_4005', 'tools[0].type'],
    ['missing model', { input: 'x' }, 'VALIDATION_4002', 'model'],
    ['missing input', { ...base }, 'VALIDATION_4002', 'input'],
    ['temperature above 2', { ...base, input: 'x', temperature: 2.1 }, 'VALIDATION_4005', 'temperature'],
    ['top_p above 1', { ...base, input: 'x', top_p: 1.5 }, 'VALIDATION_4005', 'top_p'],
    ['penalty below -2', { ...base, input: 'x', frequency_penalty: -3 }, 'VALIDATION_4005', 'frequency_penalty'],
    ['max_output_tokens 0', { ...base, input: 'x', max_output_tokens: 0 }, 'VALIDATION_4005', 'max_output_tokens'],
    ['reasoning effort unknown', { ...base, input: 'x', reasoning: { effort: 'extreme' } }, 'VALIDATION_4005', 'reasoning.effort'],
    ['output_text in a user message', { ...base, input: [{ role: 'user', content: [{ type: 'output_text', text: 'x' }] }] }, 'VALIDATION_4005', 'input[0].content[0].type'],
    ['input_file part', { ...base, input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file_1' }] }] }, 'VALIDATION_4005', 'input[0].content[0].type'],
    ['tool role message', { ...base, input: [{ role: 'tool', content: 'x' }] }, 'VALIDATION_4005', 'input[0].role'],
    ['namespace function whose flat name is taken', { ...base, input: 'x', tools: [{ type: 'function', name: 'crm__find' }, { type: 'namespace', name: 'crm', description: 'd', tools: [{ type: 'function', name: 'find' }] }] }, 'VALIDATION_4005', 'tools[1].tools[0]'],
    ['web_search inside a namespace', { ...base, input: 'x', tools: [{ type: 'namespace', name: 'crm', description: 'd', tools: [{ type: 'web_search' }] }] }, 'VALIDATION_4005', 'tools[0].tools[0].type'],
    ['empty namespace', { ...base, input: 'x', tools: [{ type: 'namespace', name: 'crm', description: 'd', tools: [] }] }, 'VALIDATION_4005', 'tools[0].tools'],
    ['function named like a built-in tool', { ...base, input: 'x', tools: [{ type: 'shell' }, { type: 'function', name: 'shell' }] }, 'VALIDATION_4005', 'tools[1]'],
    ['tool_choice naming an absent function', { ...base, input: 'x', tools: [{ type: 'function', name: 'f' }], tool_choice: { type: 'function', name: 'g' } }, 'VALIDATION_4005', 'tool_choice'],
    ['tool_choice required without tools', { ...base, input: 'x', tool_choice: 'required' }, 'VALIDATION_4005', 'tool_choice'],
    ['file_search without stores', { ...base, input: 'x', tools: [{ type: 'file_search', vector_store_ids: [] }] }, 'VALIDATION_4005', 'tools[0].vector_store_ids'],
  ])('refuses %s', (_name, body, code, field) => {
    const error = gatewayErrorOf(() => parseResponsesBody(structuredClone(body)));
    expect(error.code).toBe(code);
    expect(error.details?.['field']).toBe(field);
  });

  it('unknown names pass and are listed (DESIGN §5); server.strict_params refuses them by name', () => {
    const body = { ...base, input: [{ role: 'user', content: 'x', phase_2027: 1 }], frobnicate: 1 };
    const parsed = parseResponsesBody(structuredClone(body));
    expect(parsed.unknownFields.sort()).toEqual(['frobnicate', 'input[0].phase_2027']);
    expect(parsed.body).not.toHaveProperty('frobnicate');
    const error = gatewayErrorOf(() => parseResponsesBody({ ...base, input: 'x', frobnicate: 1 }, true));
    expect(error.code).toBe('VALIDATION_4005');
    expect(error.details?.['field']).toBe('frobnicate');
    expect(error.message).toContain('server.strict_params');
  });

  it('names the refused tool type in the message', () => {
    for (const type of ['computer_use', 'code_interpreter']) {
      expect(gatewayErrorOf(() => parseResponsesBody({ ...base, input: 'x', tools: [{ type }] })).message).toContain(`"${type}"`);
    }
  });
});
