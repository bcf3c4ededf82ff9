import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/errors/gateway-error.js';
import { toAnthropicRequest, type AnthropicRequestOptions } from '../../../../src/translate/anthropic-wire/to-anthropic-request.js';
import type { ChatMessage, ChatRequest } from '../../../../src/translate/chat/types.js';
import { readRecordedJson } from '../../../helpers/recorded.js';

const base: AnthropicRequestOptions = { model: 'claude-up', stream: false };
const hi: ChatMessage[] = [{ role: 'user', content: 'Hi' }];
const weatherTool = { type: 'function' as const, function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

function translate(request: Partial<ChatRequest>, options: Partial<AnthropicRequestOptions> = {}) {
  return toAnthropicRequest({ model: 'alias', messages: hi, ...request } as ChatRequest, { ...base, ...options });
}

function refusal(request: Partial<ChatRequest>, options: Partial<AnthropicRequestOptions> = {}): GatewayError {
  try {
    translate(request, options);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected VALIDATION_4005');
}

describe('toAnthropicRequest: fields', () => {
  it.each<[string, Partial<ChatRequest>, Partial<AnthropicRequestOptions>, Record<string, unknown>]>([
    ['minimal: model, required max_tokens default 4096, messages', {}, {}, { model: 'claude-up', max_tokens: 4096, messages: [{ role: 'user', content: 'Hi' }] }],
    ['max_tokens from the model config', {}, { maxOutputTokens: 8192 }, { max_tokens: 8192 }],
    ['request max_tokens wins over the model config', { max_tokens: 100 }, { maxOutputTokens: 8192 }, { max_tokens: 100 }],
    ['max_completion_tokens wins over max_tokens', { max_tokens: 100, max_completion_tokens: 200 }, {}, { max_tokens: 200 }],
    ['stop string → stop_sequences', { stop: 'END' }, {}, { stop_sequences: ['END'] }],
    ['stop array → stop_sequences', { stop: ['a', 'b'] }, {}, { stop_sequences: ['a', 'b'] }],
    ['temperature, top_p, top_k passed', { temperature: 0.7, top_p: 0.9, top_k: 40 }, {}, { temperature: 0.7, top_p: 0.9, top_k: 40 }],
    ['temperature 1 (the top of the range) passes', { temperature: 1 }, {}, { temperature: 1 }],
    ['user → metadata.user_id', { user: 'user-42' }, {}, { metadata: { user_id: 'user-42' } }],
    ['stream flag', {}, { stream: true }, { stream: true }],
    ['neutral values of unsupported parameters pass', { n: 1, frequency_penalty: 0, presence_penalty: 0, logprobs: false, top_logprobs: 0, min_p: 0 }, {}, { max_tokens: 4096 }],
  ])('%s', (_name, request, options, expected) => {
    expect(translate(request, options).body).toMatchObject(expected);
  });

  it('never forwards OpenAI-only fields', () => {
    const { body } = translate({ stream: true, stream_options: { include_usage: true }, n: 1, logprobs: false, frequency_penalty: 0, presence_penalty: 0, parallel_tool_calls: true, response_format: { type: 'text' } }, { stream: true });
    expect(Object.keys(body).sort()).toEqual(['max_tokens', 'messages', 'model', 'stream']);
  });

  it('empty stop array and null stop send nothing', () => {
    expect(translate({ stop: [] }).body).not.toHaveProperty('stop_sequences');
    expect(translate({ stop: null }).body).not.toHaveProperty('stop_sequences');
  });
});

describe('toAnthropicRequest: parameters Anthropic lacks are refused, never dropped or clamped', () => {
  it.each<[string, Partial<ChatRequest>, string]>([
    ['n > 1', { n: 3 }, 'n'],
    ['logprobs', { logprobs: true }, 'logprobs'],
    ['top_logprobs', { top_logprobs: 5 }, 'top_logprobs'],
    ['seed', { seed: 7 }, 'seed'],
    ['seed 0 (still a choice)', { seed: 0 }, 'seed'],
    ['frequency_penalty', { frequency_penalty: 0.5 }, 'frequency_penalty'],
    ['presence_penalty', { presence_penalty: -1 }, 'presence_penalty'],
    ['min_p', { min_p: 0.1 }, 'min_p'],
    ['logit_bias', { logit_bias: { '50256': -100 } } as Partial<ChatRequest>, 'logit_bias'],
    ['temperature above 1', { temperature: 1.5 }, 'temperature'],
  ])('%s → VALIDATION_4005 naming the parameter and the provider kind', (_name, request, field) => {
    const error = refusal(request);
    expect(error.code).toBe('VALIDATION_4005');
    expect(error.status).toBe(400);
    expect(error.details).toEqual({ field, provider_kind: 'anthropic' });
    expect(error.message).toContain(field);
    expect(error.message).toContain('anthropic');
  });

  it('temperature above 1 says the accepted range', () => {
    expect(refusal({ temperature: 1.2 }).message).toMatch(/accepts 0–1/);
  });
});

describe('toAnthropicRequest: messages', () => {
  it('system and developer messages → top-level system: one string stays a string', () => {
    const { body } = translate({ messages: [{ role: 'system', content: 'Be brief.' }, ...hi] });
    expect(body.system).toBe('Be brief.');
    expect(body.messages).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('several system/developer messages (or parts) → text blocks in order, wherever they stand', () => {
    const { body } = translate({
      messages: [{ role: 'system', content: 'One.' }, { role: 'user', content: 'Hi' }, { role: 'developer', content: [{ type: 'text', text: 'Two.' }] }, { role: 'user', content: 'Again' }],
    });
    expect(body.system).toEqual([
      { type: 'text', text: 'One.' },
      { type: 'text', text: 'Two.' },
    ]);
    // The two user turns, no longer separated, are merged (Anthropic needs alternating roles).
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'text', text: 'Again' }] }]);
  });

  it('images: data URI → base64 source, https URL → url source, text parts kept in order', () => {
    const { body } = translate({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    });
    expect(body.messages[0]!.content).toEqual([
      { type: 'text', text: 'What is in these?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it.each([
    ['a data URI that is not base64', 'data:image/png,rawbytes'],
    ['an image type Anthropic does not take', 'data:image/bmp;base64,Qk0='],
    ['a non-http URL', 'ftp://example.com/cat.png'],
  ])('refuses %s with the field path', (_name, url) => {
    const error = refusal({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }] });
    expect(error.code).toBe('VALIDATION_4005');
    expect(error.details?.['field']).toBe('messages[0].content[0].image_url.url');
  });

  it('tool round trip: tool_calls → tool_use (parsed input), consecutive tool messages → one user turn of tool_result blocks', () => {
    const { body } = translate({
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '21C' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '25C' }] },
        { role: 'user', content: 'And tomorrow?' },
      ],
      tools: [weatherTool],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '21C' },
          { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: '25C' }] },
          { type: 'text', text: 'And tomorrow?' },
        ],
      },
    ]);
  });

  it('empty tool arguments → input {}', () => {
    const { body } = translate({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'refresh', arguments: '' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'done' },
      ],
    });
    expect(body.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'refresh', input: {} }] });
  });

  it.each([
    ['invalid JSON', '{"city":'],
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"Paris"'],
  ])('tool arguments that are %s → VALIDATION_4005 naming the message', (_name, argumentsText) => {
    const error = refusal({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: argumentsText } }] },
      ],
    });
    expect(error.details?.['field']).toBe('messages[1].tool_calls[0].function.arguments');
    expect(error.message).toContain('messages[1]');
  });

  it('tool ids with characters Anthropic refuses are rewritten the same way on both sides', () => {
    const { body } = translate({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', tool_calls: [{ id: 'functions.lookup:0', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'functions.lookup:0', content: 'x' },
      ],
    });
    expect((body.messages[1]!.content as any[])[0].id).toBe('functions_lookup_0');
    expect((body.messages[2]!.content as any[])[0].tool_use_id).toBe('functions_lookup_0');
  });

  it('drops empty assistant turns and reasoning_content, then merges the neighbours', () => {
    const { body } = translate({
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: '', reasoning_content: 'thought' },
        { role: 'user', content: 'b' },
        { role: 'assistant', content: 'answer', reasoning_content: 'thought' },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      { role: 'assistant', content: 'answer' },
    ]);
  });

  it('only system messages → VALIDATION_4005', () => {
    expect(refusal({ messages: [{ role: 'system', content: 'x' }] }).details?.['field']).toBe('messages');
  });
});

describe('toAnthropicRequest: tools and tool_choice', () => {
  it('tools → name/description/input_schema; a tool without parameters gets {type: object}', () => {
    const { body } = translate({ tools: [weatherTool, { type: 'function', function: { name: 'ping' } }, { type: 'function', function: { name: 'loose', parameters: { properties: {} } } }] });
    expect(body.tools).toEqual([
      { name: 'get_weather', description: 'Weather', input_schema: weatherTool.function.parameters },
      { name: 'ping', input_schema: { type: 'object' } },
      { name: 'loose', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(body).not.toHaveProperty('tool_choice');
  });

  it.each<[string, Partial<ChatRequest>, unknown]>([
    ['auto', { tool_choice: 'auto' }, { type: 'auto' }],
    ['none', { tool_choice: 'none' }, { type: 'none' }],
    ['required → any', { tool_choice: 'required' }, { type: 'any' }],
    ['named → tool', { tool_choice: { type: 'function', function: { name: 'get_weather' } } }, { type: 'tool', name: 'get_weather' }],
    ['parallel_tool_calls false → disable_parallel_tool_use on auto', { parallel_tool_calls: false }, { type: 'auto', disable_parallel_tool_use: true }],
    ['required + parallel_tool_calls false', { tool_choice: 'required', parallel_tool_calls: false }, { type: 'any', disable_parallel_tool_use: true }],
    ['named + parallel_tool_calls false', { tool_choice: { type: 'function', function: { name: 'get_weather' } }, parallel_tool_calls: false }, { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true }],
  ])('tool_choice %s', (_name, request, expected) => {
    expect(translate({ tools: [weatherTool], ...request }).body.tool_choice).toEqual(expected);
  });

  it('tool_choice without tools is not sent', () => {
    expect(translate({ tool_choice: 'auto' }).body).not.toHaveProperty('tool_choice');
  });
});

describe('toAnthropicRequest: reasoning_effort → thinking', () => {
  it.each<[string, Partial<ChatRequest>, Partial<AnthropicRequestOptions>, unknown]>([
    ['low, no max_tokens anywhere: 4096 room on top of the budget', { reasoning_effort: 'low' }, { reasoning: true }, { max_tokens: 1024 + 4096, thinking: { type: 'enabled', budget_tokens: 1024 } }],
    ['medium', { reasoning_effort: 'medium' }, { reasoning: true }, { max_tokens: 4096 + 4096, thinking: { type: 'enabled', budget_tokens: 4096 } }],
    ['high under the model max_output_tokens', { reasoning_effort: 'high' }, { reasoning: true, maxOutputTokens: 64_000 }, { max_tokens: 64_000, thinking: { type: 'enabled', budget_tokens: 16_384 } }],
    ['high with a smaller client max_tokens: the budget shrinks below it', { reasoning_effort: 'high', max_tokens: 8000 }, { reasoning: true }, { max_tokens: 8000, thinking: { type: 'enabled', budget_tokens: 7999 } }],
    ['low with the recorded request shape', { reasoning_effort: 'low', max_tokens: 4096 }, { reasoning: true }, { max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 } }],
  ])('%s', (_name, request, options, expected) => {
    expect(translate(request, options).body).toMatchObject(expected as Record<string, unknown>);
  });

  it('a model without reasoning ignores reasoning_effort (spec)', () => {
    const { body } = translate({ reasoning_effort: 'high' }, { reasoning: false });
    expect(body).not.toHaveProperty('thinking');
    expect(body.max_tokens).toBe(4096);
  });

  it('max_tokens too small for the minimum budget → VALIDATION_4005 naming it', () => {
    expect(refusal({ reasoning_effort: 'low', max_tokens: 1000 }, { reasoning: true }).details).toEqual({ field: 'max_tokens', provider_kind: 'anthropic' });
    expect(refusal({ reasoning_effort: 'low', max_completion_tokens: 1024 }, { reasoning: true }).details?.['field']).toBe('max_completion_tokens');
  });

  it.each<[string, Partial<ChatRequest>, string]>([
    ['temperature', { temperature: 0.5 }, 'temperature'],
    ['top_k', { top_k: 5 }, 'top_k'],
    ['top_p below 0.95', { top_p: 0.5 }, 'top_p'],
    ['a forced tool_choice', { tools: [weatherTool], tool_choice: 'required' }, 'tool_choice'],
  ])('thinking refuses %s', (_name, request, field) => {
    expect(refusal({ reasoning_effort: 'medium', ...request }, { reasoning: true }).details?.['field']).toBe(field);
  });
});

describe('toAnthropicRequest: response_format', () => {
  const locationSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

  it('json_schema without client tools → one forced tool named after the schema', () => {
    const plan = translate({ response_format: { type: 'json_schema', json_schema: { name: 'Location', schema: locationSchema } } });
    expect(plan.structuredOutputTool).toBe('Location');
    expect(plan.body.tools).toEqual([{ name: 'Location', description: expect.stringContaining('final answer'), input_schema: locationSchema }]);
    expect(plan.body.tool_choice).toEqual({ type: 'tool', name: 'Location' });
    expect(plan.body).not.toHaveProperty('system');
  });

  it('json_object → forced json_response tool with an open object schema', () => {
    const plan = translate({ response_format: { type: 'json_object' } });
    expect(plan.structuredOutputTool).toBe('json_response');
    expect(plan.body.tools).toEqual([{ name: 'json_response', description: expect.any(String), input_schema: { type: 'object' } }]);
  });

  it('a schema name Anthropic would refuse as a tool name → json_response', () => {
    expect(translate({ response_format: { type: 'json_schema', json_schema: { name: 'my schema!', schema: locationSchema } } }).structuredOutputTool).toBe('json_response');
  });

  it('with client tools → a system instruction carrying the schema, client tools untouched', () => {
    const plan = translate({ messages: [{ role: 'system', content: 'Be brief.' }, ...hi], tools: [weatherTool], response_format: { type: 'json_schema', json_schema: { name: 'Location', schema: locationSchema } } });
    expect(plan.structuredOutputTool).toBeUndefined();
    expect(plan.body.tools!.map((tool) => tool.name)).toEqual(['get_weather']);
    expect(plan.body.system).toBe(`Be brief.\n\nRespond with a single JSON value that conforms to the following JSON schema, and nothing else: no text, no code fences before or after it.\n\nJSON schema:\n${JSON.stringify(locationSchema)}`);
  });

  it('with thinking → instruction (Anthropic allows no forced tool with thinking)', () => {
    const plan = translate({ reasoning_effort: 'low', response_format: { type: 'json_object' } }, { reasoning: true });
    expect(plan.structuredOutputTool).toBeUndefined();
    expect(plan.body.system).toMatch(/single JSON object/);
    expect(plan.body).not.toHaveProperty('tool_choice');
  });

  it('a schema whose root is not an object → instruction', () => {
    const plan = translate({ response_format: { type: 'json_schema', json_schema: { name: 'List', schema: { type: 'array', items: { type: 'string' } } } } });
    expect(plan.structuredOutputTool).toBeUndefined();
    expect(plan.body.system).toContain('"type":"array"');
  });

  it('system blocks get the instruction as one more block', () => {
    const plan = translate({ messages: [{ role: 'system', content: [{ type: 'text', text: 'A' }] }, ...hi], tools: [weatherTool], response_format: { type: 'json_object' } });
    expect(plan.body.system).toEqual([{ type: 'text', text: 'A' }, { type: 'text', text: expect.stringMatching(/JSON object/) }]);
  });
});


/** Recorded requests: the hub request a client would send for them must translate to what was recorded. */
describe('toAnthropicRequest against recorded Anthropic requests', () => {
  /** Fields of the recording igw does not produce: prompt caching, the echoed tool `caller`, an explicit stream false. */
  function comparable(recorded: any): any {
    const { cache_control: _cache, stream: _stream, ...rest } = recorded;
    return JSON.parse(JSON.stringify(rest, (key, value) => (key === 'caller' ? undefined : value)));
  }
  const weather = (recorded: any) => recorded.tools.map((tool: any) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.input_schema } }));

  it('nonstream-tool-use.request.json', () => {
    const recorded = readRecordedJson('anthropic-messages/nonstream-tool-use.request.json');
    const { body } = toAnthropicRequest({ model: 'alias', max_tokens: 1024, messages: [{ role: 'user', content: "What's the weather in SF in Celsius?" }], tools: weather(recorded) }, { model: 'claude-haiku-4-5', stream: false });
    expect(body).toEqual(comparable(recorded));
  });

  it('nonstream-after-tool-result.request.json (tool_use + tool_result round trip)', () => {
    const recorded = readRecordedJson('anthropic-messages/nonstream-after-tool-result.request.json');
    const { body } = toAnthropicRequest(
      {
        model: 'alias',
        max_tokens: 1024,
        messages: [
          { role: 'user', content: "What's the weather in SF in Celsius?" },
          { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_013DU6hV4C1M8dJ32ybQFAFi', type: 'function', function: { name: 'get_weather', arguments: '{"location":"SF","units":"c"}' } }] },
          { role: 'tool', tool_call_id: 'toolu_013DU6hV4C1M8dJ32ybQFAFi', content: '{"location": "SF", "temperature": "20\\u00b0C", "condition": "Sunny"}' },
        ],
        tools: weather(recorded),
      },
      { model: 'claude-haiku-4-5', stream: false },
    );
    expect(body).toEqual(comparable(recorded));
  });

  it('nonstream-thinking.request.json (reasoning_effort low → budget 1024)', () => {
    const recorded = readRecordedJson('anthropic-messages/nonstream-thinking.request.json');
    const { body } = toAnthropicRequest(
      { model: 'alias', max_tokens: 4096, reasoning_effort: 'low', messages: [{ role: 'user', content: [{ type: 'text', text: 'How do I cross the street?' }] }] },
      { model: 'claude-sonnet-4-5', stream: false, reasoning: true },
    );
    expect(body).toEqual(comparable(recorded));
  });

  it('stream-thinking.request.json (stream: true)', () => {
    const recorded = readRecordedJson('anthropic-messages/stream-thinking.request.json');
    const { body } = toAnthropicRequest(
      { model: 'alias', reasoning_effort: 'low', messages: [{ role: 'user', content: [{ type: 'text', text: 'How do I cross the street?' }] }] },
      { model: 'claude-sonnet-4-0', stream: true, reasoning: true, maxOutputTokens: 4096 },
    );
    expect(body).toEqual({ ...comparable(recorded), stream: true });
  });

  it('nonstream-cache-read.request.json (system string, multi-turn text parts)', () => {
    const recorded = readRecordedJson('anthropic-messages/nonstream-cache-read.request.json');
    const messages: ChatMessage[] = [
      { role: 'system', content: recorded.system },
      ...recorded.messages.map((message: any) => ({ role: message.role, content: message.content.map((block: any) => ({ type: 'text', text: block.text })) })),
    ];
    const { body } = toAnthropicRequest({ model: 'alias', messages }, { model: 'claude-sonnet-4-5', stream: false });
    expect(body).toEqual(comparable(recorded));
  });

  it('stream-tool-use-padded.request.json', () => {
    const recorded = readRecordedJson('anthropic-messages/stream-tool-use-padded.request.json');
    const { body } = toAnthropicRequest(
      { model: 'alias', max_tokens: 1024, messages: [{ role: 'user', content: 'What is the weather in SF?' }], tools: weather(recorded) },
      { model: 'claude-haiku-4-5', stream: true },
    );
    expect(body).toEqual({ ...comparable(recorded), stream: true });
  });
});
