import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** The official openai SDK against igw's built-in models, offline. */
describe('openai SDK against the built-in local models', () => {
  let igw: TestGateway;
  beforeAll(async () => {
    igw = await startTestGateway();
  });
  afterAll(async () => igw.close());

  it('chat: answers with the last user text, metered', async () => {
    const completion = await igw.openai().chat.completions.create({ model: 'local-echo', messages: [{ role: 'system', content: 'be terse' }, { role: 'user', content: 'Hello, gateway!' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message.content).toBe('Hello, gateway!');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
    const extra = completion as unknown as { environment_impact: Record<string, unknown>; billing_cost: Record<string, unknown> };
    expect(extra.environment_impact).toMatchObject({ provider_id: 'local', energy_kwh: 0 });
    expect(extra.billing_cost).toEqual({ energy: '0', credits: '0', paid_with: 'energy' });
  });

  it('chat: max_tokens → finish_reason length; n choices; flavor suffix echoed', async () => {
    const completion = await igw.openai().chat.completions.create({ model: 'local-echo:speed', n: 3, max_tokens: 2, messages: [{ role: 'user', content: 'one two three four five six' }] });
    expect(completion.model).toBe('local-echo:speed');
    expect(completion.choices).toHaveLength(3);
    for (const choice of completion.choices) {
      expect(choice.finish_reason).toBe('length');
      expect(choice.message.content!.length).toBeLessThan('one two three four five six'.length);
    }
  });

  it('chat stream: the SDK folds chunks into the same answer; include_usage carries impact and billing', async () => {
    const stream = await igw.openai().chat.completions.create({
      model: 'local-echo',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'streaming works token by token' }],
    });
    let text = '';
    let chunks = 0;
    let last: any;
    for await (const chunk of stream) {
      chunks += 1;
      text += chunk.choices[0]?.delta.content ?? '';
      last = chunk;
    }
    expect(text).toBe('streaming works token by token');
    expect(chunks).toBeGreaterThan(3);
    expect(last.choices).toEqual([]);
    expect(last.usage.completion_tokens).toBeGreaterThan(0);
    expect(last.environment_impact.provider_id).toBe('local');
    expect(last.billing_cost.paid_with).toBe('energy');
  });

  it('chat stream helper (runTools-style API): finalChatCompletion', async () => {
    const runner = igw.openai().chat.completions.stream({ model: 'local-echo', messages: [{ role: 'user', content: 'final answer' }] });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe('final answer');
  });

  it('chat: tool_choice required → schema-valid tool call', async () => {
    const completion = await igw.openai().chat.completions.create({
      model: 'local-echo',
      messages: [{ role: 'user', content: 'weather in Paris' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city', 'days'] },
          },
        },
      ],
      tool_choice: 'required',
    });
    const call = completion.choices[0]!.message.tool_calls![0]! as { function: { name: string; arguments: string } };
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.function.name).toBe('get_weather');
    const args = JSON.parse(call.function.arguments) as { city: string; days: number };
    expect(typeof args.city).toBe('string');
    expect(Number.isInteger(args.days) && args.days >= 1 && args.days <= 7).toBe(true);
  });

  it('chat: json_schema response_format → JSON content the SDK parses', async () => {
    const completion = await igw.openai().chat.completions.parse({
      model: 'local-echo',
      messages: [{ role: 'user', content: 'Lyon' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'Location', strict: true, schema: { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } }, required: ['city', 'celsius'], additionalProperties: false } },
      },
    });
    const parsed = completion.choices[0]!.message.parsed as unknown as { city: string; celsius: number };
    expect(typeof parsed.city).toBe('string');
    expect(typeof parsed.celsius).toBe('number');
  });

  it('embeddings: float and base64 (decoded by the SDK), dimensions', async () => {
    const client = igw.openai();
    const floats = await client.embeddings.create({ model: 'local-embed', input: ['the cat sat', 'a cat sat down'], encoding_format: 'float' });
    expect(floats.data).toHaveLength(2);
    expect(floats.data[0]!.embedding).toHaveLength(384);
    expect(floats.usage.prompt_tokens).toBeGreaterThan(0);
    const decoded = await client.embeddings.create({ model: 'local-embed', input: 'the cat sat' });
    expect(decoded.data[0]!.embedding).toHaveLength(384);
    decoded.data[0]!.embedding.forEach((value, index) => expect(value).toBeCloseTo(floats.data[0]!.embedding[index]!, 6));
    const small = await client.embeddings.create({ model: 'local-embed', input: 'the cat sat', dimensions: 64, encoding_format: 'float' });
    expect(small.data[0]!.embedding).toHaveLength(64);
  });

  it('models: list, retrieve with meta, Cache-Control', async () => {
    const client = igw.openai();
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['local-echo', 'local-embed', 'local-rerank', 'local-image']));
    const response = await fetch(`${igw.url}/v1/models/local-echo?include_meta=true`, { headers: { authorization: `Bearer ${igw.key}` } });
    expect(response.headers.get('cache-control')).toBe('max-age=300');
    const model = (await response.json()) as { _meta: Record<string, unknown> };
    expect(model._meta).toMatchObject({ type: 'chat', context_length: 131072, capabilities: { streaming: true, function_calling: true } });
    expect(model._meta['pricing']).toBeUndefined();
  });

  it('images: deterministic PNG as b64_json with numeric costs', async () => {
    const result = await igw.openai().images.generate({ model: 'local-image', prompt: 'a red fox', size: '256x256', n: 2 });
    expect(result.data).toHaveLength(2);
    const png = Buffer.from(result.data![0]!.b64_json!, 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.readUInt32BE(16)).toBe(256);
    const extra = result as unknown as { energy_cost: number; credits_cost: number };
    expect(extra.energy_cost).toBe(0);
    expect(extra.credits_cost).toBe(0);
  });

  it('rerank: BM25 results sorted with original index and documents', async () => {
    const response = await fetch(`${igw.url}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${igw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'local-rerank', query: 'capital of france', documents: ['Berlin is in Germany', { text: 'Paris is the capital of France' }, 'Bananas'], top_n: 2 }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body.results).toHaveLength(2);
    expect(body.results[0]).toMatchObject({ index: 1, document: { text: 'Paris is the capital of France' } });
    expect(body.results[0].relevance_score).toBeGreaterThan(body.results[1].relevance_score);
    expect(body.results[0].relevance_score).toBeLessThanOrEqual(1);
    expect(body.meta.billed_units.search_units).toBeGreaterThanOrEqual(1);
    expect(body.billing_cost).toBeDefined();
  });
});
