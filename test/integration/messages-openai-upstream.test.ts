import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { readRecorded } from '../helpers/recorded.js';

function completion(message: Record<string, unknown>, finish = 'stop', usage: Record<string, unknown> = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 40 } }) {
  return { id: 'chatcmpl-up1', object: 'chat.completion', created: 1_700_000_000, model: 'real-model-1', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }], usage };
}
function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return JSON.stringify({ id: 'chatcmpl-s1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'real-model-1', choices: [{ index: 0, delta, finish_reason: finish }] });
}
const usageChunk = JSON.stringify({ id: 'chatcmpl-s1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'real-model-1', choices: [], usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } });

const weatherTool = { name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };

/** The official Anthropic SDK against igw → an OpenAI-compatible upstream (pure translation both ways). */
describe('/v1/messages through an OpenAI-compatible provider', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  let handler: FakeHandler = () => ({ json: completion({ content: 'hello from upstream' }) });
  let client: Anthropic;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => handler(request));
    igw = await startTestGateway(upstreamConfig(upstream.url, { message_tiers: { opus: 'up-chat', sonnet: 'up-chat', haiku: 'local-echo' } }));
    client = igw.anthropic();
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });
  afterEach(() => {
    upstream.requests.length = 0;
    handler = () => ({ json: completion({ content: 'hello from upstream' }) });
  });

  it('create: tier mapping, echoed model, usage with cache reads, billing fields; nothing Anthropic-only forwarded', async () => {
    const message = await client.messages.create({
      model: 'Claude-SONNET-x',
      max_tokens: 50,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      metadata: { user_id: 'user-7' },
      ...({ top_k: 5 } as object),
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }],
    });
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'Claude-SONNET-x',
      content: [{ type: 'text', text: 'hello from upstream' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 60, output_tokens: 20, cache_read_input_tokens: 40 },
    });
    expect(message.id).toMatch(/^msg_/);
    const extra = message as unknown as { environment_impact: Record<string, unknown>; billing_cost: Record<string, unknown> };
    expect(extra.environment_impact).toMatchObject({ provider_id: 'up' });
    expect(extra.billing_cost).toHaveProperty('paid_with');
    const sent = upstream.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body).toMatchObject({ model: 'real-model-1', max_tokens: 50, top_k: 5, user: 'user-7', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] });
    expect(sent.rawBody).not.toContain('cache_control');
    expect(sent.rawBody).not.toContain('metadata');
  });

  it('tools round trip: tool_use out, tool_result back in as tool messages', async () => {
    handler = () => ({ json: completion({ content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, 'tool_calls') });
    const first = await client.messages.create({ model: 'up-chat', max_tokens: 50, tools: [weatherTool], tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }]);
    expect(upstream.requests[0]!.body).toMatchObject({ tool_choice: 'required', tools: [{ type: 'function', function: { name: 'get_weather', parameters: weatherTool.input_schema } }] });

    handler = () => ({ json: completion({ content: 'It is 18C in Paris.' }) });
    const second = await client.messages.create({
      model: 'up-chat',
      max_tokens: 50,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: '18C' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'It is 18C in Paris.' }]);
    expect(upstream.requests[1]!.body.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '18C' },
    ]);
  });

  it('finish length → max_tokens; stop sequences forwarded as stop', async () => {
    handler = () => ({ json: completion({ content: 'cut' }, 'length') });
    const message = await client.messages.create({ model: 'up-chat', max_tokens: 1, stop_sequences: ['END'], messages: [{ role: 'user', content: 'long' }] });
    expect(message.stop_reason).toBe('max_tokens');
    expect(upstream.requests[0]!.body.stop).toEqual(['END']);
  });

  it('count_tokens: real tokenizer over system, messages, tools and images; free', async () => {
    const plain = await client.messages.countTokens({ model: 'up-chat', messages: [{ role: 'user', content: 'Hello there, how are you?' }] });
    expect(plain.input_tokens).toBeGreaterThan(5);
    const withSystem = await client.messages.countTokens({ model: 'up-chat', system: 'You are a helpful assistant that answers briefly.', messages: [{ role: 'user', content: 'Hello there, how are you?' }] });
    expect(withSystem.input_tokens).toBeGreaterThan(plain.input_tokens + 5);
    const withTools = await client.messages.countTokens({ model: 'up-chat', tools: [weatherTool], messages: [{ role: 'user', content: 'Hello there, how are you?' }] });
    expect(withTools.input_tokens).toBeGreaterThan(plain.input_tokens + 10);
    const withImage = await client.messages.countTokens({
      model: 'up-chat',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there, how are you?' }, { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] }],
    });
    expect(withImage.input_tokens).toBeGreaterThanOrEqual(plain.input_tokens + 700);
    const raw = await postJson(`${igw.url}/v1/messages/count_tokens`, igw.key, { messages: [{ role: 'user', content: 'x' }] }, { 'compat-version': '2023-06-01' });
    expect(raw.status).toBe(200);
    expect(Object.keys(raw.json)).toEqual(['input_tokens']);
    expect(upstream.requests).toHaveLength(0);
  });

  it('errors: SDK classes from the status, envelope keeps the spec fields', async () => {
    const badKey = igw.anthropic('igw_bogus');
    await expect(badKey.messages.create({ model: 'up-chat', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    await expect(client.messages.create({ model: 'no-such-model', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    const bad = await client.messages
      .create({ model: 'up-chat', max_tokens: 5, messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'x' } as never] }] })
      .catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(Anthropic.BadRequestError);
    expect((bad as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', code: 'VALIDATION_4005', details: { block: 'messages[1].content[0]' } },
    });
    expect(upstream.requests).toHaveLength(0);
  });

  it('stream: the SDK .stream() sees text and inputJson events; finalMessage() folds the answer', async () => {
    handler = () => ({
      sse: [
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Let me ' }),
        chunk({ content: 'check.' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        chunk({}, 'tool_calls'),
        usageChunk,
      ],
    });
    const stream = client.messages.stream({ model: 'up-chat', max_tokens: 50, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    let text = '';
    const json: string[] = [];
    stream.on('text', (delta) => (text += delta));
    stream.on('inputJson', (partial) => json.push(partial));
    const final = await stream.finalMessage();
    expect(text).toBe('Let me check.');
    expect(json.join('')).toBe('{"city":"Paris"}');
    expect(final).toMatchObject({
      model: 'up-chat',
      stop_reason: 'tool_use',
      content: [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'call_9', name: 'get_weather', input: { city: 'Paris' } },
      ],
      usage: { input_tokens: 10, output_tokens: 3 },
    });
    expect(upstream.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('stream on the wire: named events, real input usage in message_start, no billing fields', async () => {
    handler = () => ({ sse: [chunk({ role: 'assistant', content: 'Hi' }), chunk({}, 'stop')] });
    const response = await fetch(`${igw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': igw.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'up-chat', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'Say hi to everyone in the room' }] }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const text = await response.text();
    const frames = text.split('\n\n').filter((frame) => frame.startsWith('event:'));
    const events = frames.map((frame) => ({ name: /^event: (.*)$/m.exec(frame)![1], data: JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) }));
    expect(events.map((event) => event.name)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    for (const event of events) expect(event.data.type).toBe(event.name);
    expect(events[0]!.data.message.usage.input_tokens).toBeGreaterThan(5);
    // The upstream reported no usage: output is counted, input stays the counted prompt.
    expect(events[4]!.data.usage.output_tokens).toBeGreaterThan(0);
    expect(text).not.toContain('billing_cost');
    expect(text).not.toContain('environment_impact');
  });

  it('stream: an upstream failure mid-stream becomes an error event and the SDK raises', async () => {
    handler = () => ({ destroy: true, sseBefore: [chunk({ role: 'assistant', content: 'partial ' })] });
    const response = await fetch(`${igw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': igw.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'up-chat', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    const text = await response.text();
    expect(text).toContain('event: message_start');
    expect(text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"api_error"/);
    expect(text.trimEnd().split('\n\n').at(-1)).toMatch(/^event: error/);

    const stream = client.messages.stream({ model: 'up-chat', max_tokens: 20, messages: [{ role: 'user', content: 'x' }] });
    await expect(stream.finalMessage()).rejects.toThrow();
  });

  it('stream: an upstream that ends without a finish gives an error event', async () => {
    handler = () => ({ sse: [chunk({ role: 'assistant', content: 'partial' })] });
    const response = await fetch(`${igw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': igw.key, 'compat-version': '1' },
      body: JSON.stringify({ model: 'up-chat', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    const text = await response.text();
    expect(text.trimEnd().split('\n\n').at(-1)).toMatch(/^event: error/);
    expect(text).not.toContain('message_stop');
  });

  it('400: an image that is not an image names the client block, not the hub message', async () => {
    const response = await postJson(
      `${igw.url}/v1/messages`,
      igw.key,
      { model: 'up-chat', max_tokens: 5, system: 'sys', messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAAAAAA' } }] }] },
      { 'compat-version': '1' },
    );
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ type: 'invalid_request_error', code: 'VALIDATION_4005', details: { field: 'messages[2].content[1].source', block: 'messages[2].content[1]' } });
    expect(response.json.error.message).toContain('messages[2].content[1]');
    expect(upstream.requests).toHaveLength(0);
  });

  for (const file of ['openai-compatible/groq-stream-midstream-error.sse', 'openai-compatible/openrouter-stream-error-in-chunk.sse']) {
    it(`stream: recorded upstream failure ${file} → error event last, no message_stop`, async () => {
      handler = () => ({ rawSse: readRecorded(file), randomChunks: true, seed: 11 });
      const response = await fetch(`${igw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': igw.key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'up-chat', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'x' }] }),
      });
      const text = await response.text();
      const frames = text.trimEnd().split('\n\n').filter((frame) => frame.startsWith('event:'));
      expect(frames.at(-1)).toMatch(/^event: error\ndata: \{"type":"error","error":\{"type":"[a-z_]+","code":"INFERENCE_3/);
      expect(text).not.toContain('message_stop');
    });
  }

  const base = { model: 'up-chat', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] };
  const validationCases: Array<[string, unknown, Record<string, string>, string, string]> = [
    ['missing version header', base, {}, 'VALIDATION_4002', 'compat-version'],
    ['max_tokens required', { model: 'up-chat', messages: base.messages }, { 'compat-version': '1' }, 'VALIDATION_4002', 'max_tokens'],
    ['temperature above 1', { ...base, temperature: 1.5 }, { 'compat-version': '1' }, 'VALIDATION_4005', 'temperature'],
    ['bad role', { ...base, messages: [{ role: 'developer', content: 'x' }] }, { 'anthropic-version': '2023-06-01' }, 'VALIDATION_4005', 'messages[0].role'],
    ['image without data', { ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png' } }] }] }, { 'compat-version': '1' }, 'VALIDATION_4005', 'messages[0].content[0].source.data'],
    ['tool_use in a user message', { ...base, messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'f', input: {} }] }] }, { 'compat-version': '1' }, 'VALIDATION_4005', 'messages[0].content[0].type'],
    ['bad output_config.effort', { ...base, output_config: { effort: 'extreme' } }, { 'compat-version': '1' }, 'VALIDATION_4005', 'output_config.effort'],
  ];
  for (const [name, body, headers, code, field] of validationCases) {
    it(`400: ${name}`, async () => {
      const response = await postJson(`${igw.url}/v1/messages`, igw.key, body, headers);
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', code, details: { field } } });
    });
  }
  it('request log: streams are billed and logged with the upstream usage; count_tokens is free', async () => {
    // Through the store, whichever holds the log (test matrix: JSONL files or the PostgreSQL table).
    const lines = await igw.gateway.app.store.requestLog.readSince(0);
    const streamed = lines.filter((line) => line.endpoint === '/v1/messages' && line.stream === true && line.status === 200);
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed[0]).toMatchObject({ model: 'up-chat', provider: 'up', route: 'up/real-model-1', input_tokens: 10, output_tokens: 3 });
    expect(Number(streamed[0]!.eur)).toBeGreaterThan(0);
    const counted = lines.filter((line) => line.endpoint === '/v1/messages/count_tokens' && line.status === 200);
    expect(counted.length).toBeGreaterThan(0);
    for (const line of counted) expect(line.eur ?? '0').toBe('0');
  });
});
