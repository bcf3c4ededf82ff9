import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';

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
    client = new Anthropic({ apiKey: igw.key, baseURL: igw.url, maxRetries: 0, timeout: 10_000 });
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
    const badKey = new Anthropic({ apiKey: 'igw_bogus', baseURL: igw.url, maxRetries: 0 });
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

  const base = { model: 'up-chat', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] };
  const validationCases: Array<[string, unknown, Record<string, string>, string, string]> = [
    ['missing version header', base, {}, 'VALIDATION_4002', 'compat-version'],
    ['max_tokens required', { model: 'up-chat', messages: base.messages }, { 'compat-version': '1' }, 'VALIDATION_4002', 'max_tokens'],
    ['temperature above 1', { ...base, temperature: 1.5 }, { 'compat-version': '1' }, 'VALIDATION_4005', 'temperature'],
    ['bad role', { ...base, messages: [{ role: 'system', content: 'x' }] }, { 'anthropic-version': '2023-06-01' }, 'VALIDATION_4005', 'messages[0].role'],
    ['image without data', { ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png' } }] }] }, { 'compat-version': '1' }, 'VALIDATION_4005', 'messages[0].content[0].source.data'],
    ['tool_use in a user message', { ...base, messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'f', input: {} }] }] }, { 'compat-version': '1' }, 'VALIDATION_4005', 'messages[0].content[0].type'],
    ['unknown field', { ...base, frequency_penalty: 1 }, { 'compat-version': '1' }, 'VALIDATION_4005', 'frequency_penalty'],
  ];
  for (const [name, body, headers, code, field] of validationCases) {
    it(`400: ${name}`, async () => {
      const response = await postJson(`${igw.url}/v1/messages`, igw.key, body, headers);
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', code, details: { field } } });
    });
  }
});
