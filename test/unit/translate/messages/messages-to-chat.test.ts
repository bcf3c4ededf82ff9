import { describe, expect, it } from 'vitest';
import { messagesToChat } from '../../../../src/translate/messages/messages-to-chat.js';
import type { MessagesRequest } from '../../../../src/translate/messages/types.js';

const base: MessagesRequest = { model: 'claude-3-5-sonnet-latest', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] };

describe('messagesToChat', () => {
  const cases: Array<{ name: string; request: Partial<MessagesRequest>; expected: Record<string, unknown> }> = [
    { name: 'plain string user message', request: {}, expected: { messages: [{ role: 'user', content: 'Hi' }], max_tokens: 64 } },
    { name: 'system string → system message', request: { system: 'Be brief.' }, expected: { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] } },
    {
      name: 'system blocks joined, cache_control dropped',
      request: { system: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B', cache_control: { type: 'ephemeral' } }] },
      expected: { messages: [{ role: 'system', content: 'A\n\nB' }, { role: 'user', content: 'Hi' }] },
    },
    { name: 'stop_sequences → stop', request: { stop_sequences: ['END', '###'] }, expected: { stop: ['END', '###'] } },
    { name: 'sampling fields copied', request: { temperature: 0.2, top_p: 0.9, top_k: 40 }, expected: { temperature: 0.2, top_p: 0.9, top_k: 40 } },
    { name: 'metadata.user_id → user', request: { metadata: { user_id: 'u-1' } }, expected: { user: 'u-1' } },
    {
      name: 'tools → function tools',
      request: { tools: [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } }, cache_control: { type: 'ephemeral' } }] },
      expected: { tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }] },
    },
    { name: 'tool_choice auto', request: { tool_choice: { type: 'auto' } }, expected: { tool_choice: 'auto' } },
    { name: 'tool_choice any → required', request: { tool_choice: { type: 'any' } }, expected: { tool_choice: 'required' } },
    { name: 'tool_choice none', request: { tool_choice: { type: 'none' } }, expected: { tool_choice: 'none' } },
    { name: 'tool_choice tool → named', request: { tool_choice: { type: 'tool', name: 'f' } }, expected: { tool_choice: { type: 'function', function: { name: 'f' } } } },
    {
      name: 'disable_parallel_tool_use → parallel_tool_calls false',
      request: { tool_choice: { type: 'auto', disable_parallel_tool_use: true } },
      expected: { tool_choice: 'auto', parallel_tool_calls: false },
    },
    {
      name: 'a mid-conversation system message → a system message at that point (blocks joined)',
      request: { system: 'S', messages: [{ role: 'user', content: 'a' }, { role: 'system', content: [{ type: 'text', text: 'B' }, { type: 'text', text: 'C' }] }, { role: 'user', content: 'd' }] },
      expected: { messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'a' }, { role: 'system', content: 'B\n\nC' }, { role: 'user', content: 'd' }] },
    },
    {
      name: 'a system message with no text (an effort-only beta message) adds nothing',
      request: { messages: [{ role: 'user', content: 'a' }, { role: 'system', content: [], output_config: { effort: 'low' } }] },
      expected: { messages: [{ role: 'user', content: 'a' }] },
    },
    {
      name: 'thinking blocks of earlier turns are not carried',
      request: { messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'redacted_thinking', data: 'r' }, { type: 'text', text: 'b' }] }] },
      expected: { messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }] },
    },
    { name: 'output_config.effort → reasoning_effort', request: { output_config: { effort: 'low' } }, expected: { reasoning_effort: 'low' } },
    { name: 'output_config.effort max → the hub\'s top (high)', request: { output_config: { effort: 'max' } }, expected: { reasoning_effort: 'high' } },
    {
      name: 'output_config.format → response_format json_schema',
      request: { output_config: { format: { type: 'json_schema', schema: { type: 'object' } } } },
      expected: { response_format: { type: 'json_schema', json_schema: { name: 'output', schema: { type: 'object' }, strict: true } } },
    },
    {
      name: 'beta output_format → response_format json_schema',
      request: { output_format: { type: 'json_schema', schema: { type: 'array' } } },
      expected: { response_format: { type: 'json_schema', json_schema: { name: 'output', schema: { type: 'array' }, strict: true } } },
    },
    {
      name: 'tools[].strict → function.strict; server tools are not carried',
      request: { tools: [{ name: 'f', input_schema: { type: 'object' }, strict: true, eager_input_streaming: true }, { type: 'web_search_20250305', name: 'web_search' }] },
      expected: { tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: true } }] },
    },
  ];
  for (const { name, request, expected } of cases) {
    it(name, () => {
      expect(messagesToChat({ ...base, ...request })).toMatchObject({ model: base.model, ...expected });
    });
  }

  it('images: base64 → data URI, url → image_url', () => {
    const chat = messagesToChat({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is it?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
          ],
        },
      ],
    });
    expect(chat.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is it?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
    ]);
  });

  it('tool round trip: tool_use → tool_calls, tool_result → tool messages right after the assistant turn', () => {
    const chat = messagesToChat({
      ...base,
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Here you go.' },
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '18C' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'offline' }], is_error: true, cache_control: { type: 'ephemeral' } },
          ],
        },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: '18C' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'Error: offline' },
      { role: 'user', content: 'Here you go.' },
    ]);
  });

  it('assistant with only tool_use has null content; image inside a tool_result moves to the user message', () => {
    const chat = messagesToChat({
      ...base,
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'shot', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'image', source: { type: 'url', url: 'https://e.com/x.png' } }] }] },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 't', type: 'function', function: { name: 'shot', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 't', content: '' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://e.com/x.png' } }] },
    ]);
  });

  it('never forwards Anthropic-only fields', () => {
    const chat = messagesToChat({ ...base, system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }], metadata: { user_id: 'u' }, stream: true } as MessagesRequest);
    const text = JSON.stringify(chat);
    expect(text).not.toContain('cache_control');
    expect(text).not.toContain('metadata');
    expect(Object.keys(chat).sort()).toEqual(['max_tokens', 'messages', 'model', 'user']);
  });

  it('uses the upstream model name when given', () => {
    expect(messagesToChat(base, 'local-echo').model).toBe('local-echo');
  });
  it('records where each image part came from (hub field → surface field)', () => {
    const fields = new Map<string, string>();
    messagesToChat(
      {
        ...base,
        system: 's',
        messages: [
          { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'shot', input: {} }] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'x' }, { type: 'image', source: { type: 'url', url: 'https://e.com/x.png' } }] },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            ],
          },
        ],
      },
      'm',
      fields,
    );
    expect([...fields]).toEqual([
      ['messages[3].content[0].image_url.url', 'messages[1].content[0].content[1]'],
      ['messages[3].content[1].image_url.url', 'messages[1].content[1]'],
    ]);
  });
  it('no reasoning_effort or response_format unless asked', () => {
    const chat = messagesToChat(base);
    expect(chat).not.toHaveProperty('reasoning_effort');
    expect(chat).not.toHaveProperty('response_format');
  });
  it('an empty assistant turn stays an empty string (null content needs tool_calls on the OpenAI wire)', () => {
    expect(messagesToChat({ ...base, messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [] }] }).messages[1]).toEqual({ role: 'assistant', content: '' });
  });
});
