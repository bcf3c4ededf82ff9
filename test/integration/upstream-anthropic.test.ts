import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeHandler, type FakeRequest, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** A Messages API answer. */
function message(content: unknown[], stopReason = 'end_turn', usage: Record<string, number> = { input_tokens: 20, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }) {
  return { id: 'msg_up1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content, stop_reason: stopReason, stop_sequence: null, usage };
}

/** An Anthropic event stream as the API frames it (`event:` lines; the fake's `sse` replies have none). */
function anthropicSse(events: unknown[]): string {
  return events.map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

function textStream(pieces: string[], usage = { input_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1 }, finalOutput = 3) {
  return anthropicSse([
    { type: 'message_start', message: { id: 'msg_st1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, usage } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'ping' },
    ...pieces.map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: finalOutput } },
    { type: 'message_stop' },
  ]);
}

/** The only top-level fields igw may send to the Messages API. */
const ANTHROPIC_FIELDS = new Set(['model', 'max_tokens', 'system', 'messages', 'stop_sequences', 'temperature', 'top_p', 'top_k', 'metadata', 'tools', 'tool_choice', 'thinking', 'stream']);

function expectAnthropicRequest(sent: FakeRequest): void {
  expect(sent.method).toBe('POST');
  expect(sent.path).toBe('/v1/messages');
  expect(sent.headers['x-api-key']).toBe('sk-ant-upstream-secret');
  expect(sent.headers['anthropic-version']).toBe('2023-06-01');
  expect(sent.headers['content-type']).toBe('application/json');
  expect(sent.headers.authorization).toBeUndefined();
  for (const key of Object.keys(sent.body)) expect(ANTHROPIC_FIELDS.has(key), `field "${key}" sent to Anthropic`).toBe(true);
}

/** igw in front of a loopback fake of the Anthropic Messages API, driven by the official openai SDK. */
describe('proxying chat completions to an Anthropic provider', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  let handler: FakeHandler = () => ({ json: message([{ type: 'text', text: 'hello from claude' }]) });

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => handler(request));
    igw = await startTestGateway({
      providers: {
        claude: { kind: 'anthropic', base_url: upstream.url, api_key: 'sk-ant-upstream-secret', timeout_ms: 2000, location: 'US', pue: 1.1, renewable_percent: 50, carbon_g_per_kwh: 300, water_l_per_kwh: 1 },
      },
      models: {
        'claude-chat': {
          type: 'chat',
          owned_by: 'anthropic',
          context_length: 200_000,
          max_output_tokens: 4096,
          capabilities: { streaming: true, function_calling: true, vision: true, structured_output: true, json_schema: true },
          routes: [
            {
              provider: 'claude',
              upstream_model: 'claude-sonnet-4-5',
              pricing: { input_cost_per_million_eur: 3, output_cost_per_million_eur: 15, cache_read_cost_per_million_eur: 0.3 },
              energy: { wh_per_1k_input_tokens: 0.01, wh_per_1k_output_tokens: 0.1 },
            },
          ],
        },
        'claude-thinker': {
          type: 'chat',
          reasoning_type: 'hybrid',
          capabilities: { streaming: true, reasoning: true },
          routes: [{ provider: 'claude', upstream_model: 'claude-sonnet-4-5', pricing: { input_cost_per_million_eur: 3, output_cost_per_million_eur: 15 } }],
        },
      },
    });
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });
  afterEach(() => {
    handler = () => ({ json: message([{ type: 'text', text: 'hello from claude' }]) });
  });

  it('non-stream: system prompt, stop sequences, sampling and user reach Anthropic in its own shape; nothing OpenAI-only', async () => {
    const before = upstream.requests.length;
    const result = (await igw.openai().chat.completions.create({
      model: 'claude-chat',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'hi' },
      ],
      temperature: 0.3,
      stop: ['END', 'STOP'],
      user: 'user-7',
      n: 1,
      frequency_penalty: 0,
      // @ts-expect-error igw-only fields
      preset: 'non_reasoning',
      request_id: 'corr-1',
    })) as any;
    const sent = upstream.requests[before]!;
    expectAnthropicRequest(sent);
    expect(sent.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: 'You are terse.',
      messages: [{ role: 'user', content: 'hi' }],
      stop_sequences: ['END', 'STOP'],
      temperature: 0.3,
      metadata: { user_id: 'user-7' },
    });
    expect(result).toMatchObject({ object: 'chat.completion', model: 'claude-chat', choices: [{ index: 0, message: { role: 'assistant', content: 'hello from claude' }, finish_reason: 'stop' }] });
    expect(result.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30, cached_tokens: 0 });
    // (20 × 3 + 10 × 15) / 1e6 EUR
    expect(result.billing_cost).toEqual({ energy: '0.21', credits: '0.00021', paid_with: 'energy' });
    expect(result.environment_impact).toMatchObject({ provider_id: 'claude', location: 'US', pue: 1.1 });
  });

  it('a max_tokens from the client is sent as is', async () => {
    const before = upstream.requests.length;
    await igw.openai().chat.completions.create({ model: 'claude-chat', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    expect(upstream.requests[before]!.body.max_tokens).toBe(50);
  });

  it('cache reads → usage.cached_tokens, billed at the cache-read rate (cache writes at the input rate)', async () => {
    handler = () => ({ json: message([{ type: 'text', text: 'cached' }], 'end_turn', { input_tokens: 100, cache_read_input_tokens: 1000, cache_creation_input_tokens: 50, output_tokens: 20 }) });
    const result = (await igw.openai().chat.completions.create({ model: 'claude-chat', messages: [{ role: 'user', content: 'hi' }] })) as any;
    expect(result.usage).toMatchObject({ prompt_tokens: 1150, completion_tokens: 20, total_tokens: 1170, cached_tokens: 1000, prompt_tokens_details: { cached_tokens: 1000 } });
    // (150 × 3 + 1000 × 0.3 + 20 × 15) / 1e6 EUR = 0.00105 EUR
    expect(result.billing_cost.credits).toBe('0.00105');
  });

  it('stream with include_usage: text relayed, the last chunk carries usage and billing; Anthropic gets stream: true only', async () => {
    handler = () => ({ rawSse: textStream(['Hel', 'lo', ' there'], { input_tokens: 10, cache_read_input_tokens: 500, cache_creation_input_tokens: 0, output_tokens: 1 }, 4), randomChunks: true, seed: 9 });
    const before = upstream.requests.length;
    const stream = await igw.openai().chat.completions.create({ model: 'claude-chat', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] });
    const parts: any[] = [];
    for await (const part of stream) parts.push(part);
    const sent = upstream.requests[before]!;
    expectAnthropicRequest(sent);
    expect(sent.body.stream).toBe(true);
    expect(sent.body).not.toHaveProperty('stream_options');
    expect(parts.map((part) => part.choices[0]?.delta?.content ?? '').join('')).toBe('Hello there');
    expect(parts[0].choices[0].delta.role).toBe('assistant');
    expect(parts.filter((part) => part.choices[0]?.finish_reason === 'stop')).toHaveLength(1);
    expect(parts.every((part) => part.model === 'claude-chat')).toBe(true);
    const last = parts.at(-1);
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 510, completion_tokens: 4, cached_tokens: 500 });
    // (10 × 3 + 500 × 0.3 + 4 × 15) / 1e6 EUR
    expect(last.billing_cost.credits).toBe('0.00024');
  });

  it('stream without include_usage: no usage on any chunk', async () => {
    handler = () => ({ rawSse: textStream(['a', 'b']) });
    const stream = await igw.openai().chat.completions.create({ model: 'claude-chat', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const parts: any[] = [];
    for await (const part of stream) parts.push(part);
    expect(parts.map((part) => part.choices[0]?.delta?.content ?? '').join('')).toBe('ab');
    expect(parts.every((part) => part.usage == null)).toBe(true);
  });

  it('tools round trip: a tool call, then the follow-up with the tool result', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
    handler = () => ({ json: message([{ type: 'text', text: 'Let me check.' }, { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } }], 'tool_use') });
    const before = upstream.requests.length;
    const first = await igw.openai().chat.completions.create({ model: 'claude-chat', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, tool_choice: 'auto', parallel_tool_calls: false });
    const firstSent = upstream.requests[before]!;
    expectAnthropicRequest(firstSent);
    expect(firstSent.body.tools).toEqual([{ name: 'get_weather', description: 'Current weather', input_schema: tools[0]!.function.parameters }]);
    expect(firstSent.body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBe('Let me check.');
    const call = choice.message.tool_calls![0]! as { id: string; type: 'function'; function: { name: string; arguments: string } };
    expect(call).toEqual({ id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });

    handler = () => ({ json: message([{ type: 'text', text: 'It is 21°C in Paris.' }]) });
    const second = await igw.openai().chat.completions.create({
      model: 'claude-chat',
      messages: [{ role: 'user', content: 'Weather in Paris?' }, choice.message, { role: 'tool', tool_call_id: call.id, content: '{"temp_c":21}' }],
      tools,
    });
    expect(second.choices[0]!.message.content).toBe('It is 21°C in Paris.');
    expect(upstream.requests[before + 1]!.body.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: [{ type: 'text', text: 'Let me check.' }, { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: '{"temp_c":21}' }] },
    ]);
  });

  it('streamed tool calls assemble in the SDK stream helper (ids, names, 0-based indexes, arguments)', async () => {
    handler = () => ({
      rawSse: anthropicSse([
        { type: 'message_start', message: { id: 'msg_t', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], usage: { input_tokens: 30, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Checking both.' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_P', name: 'get_weather', input: {} } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city": "Pa' } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'ris"}' } },
        { type: 'content_block_stop', index: 1 },
        { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_R', name: 'get_time', input: {} } },
        { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '' } },
        { type: 'content_block_stop', index: 2 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 40 } },
        { type: 'message_stop' },
      ]),
      randomChunks: true,
    });
    const stream = igw.openai().chat.completions.stream({
      model: 'claude-chat',
      messages: [{ role: 'user', content: 'Weather and time in Paris?' }],
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
        { type: 'function', function: { name: 'get_time' } },
      ],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.choices[0]!.message.content).toBe('Checking both.');
    expect(final.choices[0]!.message.tool_calls!.map((call: any) => [call.id, call.function.name, JSON.parse(call.function.arguments)])).toEqual([
      ['toolu_P', 'get_weather', { city: 'Paris' }],
      ['toolu_R', 'get_time', {}],
    ]);
    expect(final.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 40 });
  });

  it('images as data URIs become base64 image blocks', async () => {
    const before = upstream.requests.length;
    await igw.openai().chat.completions.create({
      model: 'claude-chat',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==' } },
          ],
        },
      ],
    });
    expect(upstream.requests[before]!.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==' } },
        ],
      },
    ]);
  });

  it('response_format json_schema: a forced tool upstream, plain JSON content for the client', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    handler = () => ({ json: message([{ type: 'tool_use', id: 'toolu_J', name: 'Location', input: { city: 'Paris' } }], 'tool_use') });
    const before = upstream.requests.length;
    const result = await igw.openai().chat.completions.create({
      model: 'claude-chat',
      messages: [{ role: 'user', content: 'Where is the Eiffel tower?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'Location', schema, strict: true } },
    });
    const sent = upstream.requests[before]!.body;
    expect(sent.tools).toEqual([{ name: 'Location', description: expect.any(String), input_schema: schema }]);
    expect(sent.tool_choice).toEqual({ type: 'tool', name: 'Location' });
    expect(result.choices[0]!.finish_reason).toBe('stop');
    expect(result.choices[0]!.message.tool_calls ?? null).toBeNull();
    expect(JSON.parse(result.choices[0]!.message.content!)).toEqual({ city: 'Paris' });
  });

  it('reasoning_effort on a reasoning model → thinking with the effort budget; thinking comes back as reasoning_content', async () => {
    handler = () => ({ json: message([{ type: 'thinking', thinking: 'Short question.', signature: 'EqoBsig' }, { type: 'text', text: 'Yes.' }]) });
    const before = upstream.requests.length;
    const result = (await igw.openai().chat.completions.create({ model: 'claude-thinker', max_tokens: 3000, reasoning_effort: 'low', messages: [{ role: 'user', content: 'Is water wet?' }] })) as any;
    expect(upstream.requests[before]!.body).toMatchObject({ max_tokens: 3000, thinking: { type: 'enabled', budget_tokens: 1024 } });
    expect(result.choices[0].message).toMatchObject({ content: 'Yes.', reasoning_content: 'Short question.' });
    expect(JSON.stringify(result)).not.toContain('EqoBsig');
  });

  it('reasoning_effort on a non-reasoning model is ignored (no thinking upstream)', async () => {
    const before = upstream.requests.length;
    await igw.openai().chat.completions.create({ model: 'claude-chat', reasoning_effort: 'high', messages: [{ role: 'user', content: 'hi' }] });
    expect(upstream.requests[before]!.body).not.toHaveProperty('thinking');
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['n > 1', { n: 2 }, 'n'],
    ['logprobs', { logprobs: true }, 'logprobs'],
    ['seed', { seed: 1 }, 'seed'],
    ['presence_penalty', { presence_penalty: 0.5 }, 'presence_penalty'],
    ['temperature above 1', { temperature: 1.4 }, 'temperature'],
  ])('%s → 400 VALIDATION_4005 naming the parameter; nothing sent upstream', async (_name, extra, field) => {
    const before = upstream.requests.length;
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'claude-chat', messages: [{ role: 'user', content: 'hi' }], ...extra });
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code: 'VALIDATION_4005', details: { field, provider_kind: 'anthropic' } });
    expect(upstream.requests.length).toBe(before);
  });

  it.each([
    ['429 rate_limit_error with Retry-After', () => ({ status: 429, json: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }, headers: { 'retry-after': '9' } }), 429, 'INFERENCE_3108'],
    ['529 overloaded_error', () => ({ status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }), 502, 'INFERENCE_3105'],
    ['400 prompt is too long', () => ({ status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } } }), 400, 'INFERENCE_3207'],
    ['400 invalid_request_error', () => ({ status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'messages: roles must alternate' } } }), 400, 'VALIDATION_4005'],
    ['401 authentication_error', () => ({ status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } }), 502, 'INFERENCE_3105'],
  ] as Array<[string, FakeHandler, number, string]>)('upstream %s → %s %s', async (_name, reply, status, code) => {
    handler = reply;
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'claude-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(status);
    expect(response.json.error.code).toBe(code);
    expect(JSON.stringify(response.json)).not.toContain('sk-ant-upstream-secret');
    if (code === 'INFERENCE_3108') expect(response.headers.get('retry-after')).toBe('9');
  });

  it('an overloaded_error event mid-stream ends the client stream with an error', async () => {
    handler = () => ({
      rawSse: anthropicSse([
        { type: 'message_start', message: { id: 'msg_e', model: 'claude-sonnet-4-5-20250929', usage: { input_tokens: 5, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'partial' } },
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      ]),
    });
    const stream = await igw.openai().chat.completions.create({ model: 'claude-chat', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const received: string[] = [];
    await expect(
      (async () => {
        for await (const part of stream) received.push(part.choices[0]?.delta?.content ?? '');
      })(),
    ).rejects.toThrow();
    expect(received.join('')).toBe('partial');
  });
});
