import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, setAccount } from '../../src/admin/accounts-admin.js';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';

function completion(content: string, usage = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500, prompt_tokens_details: { cached_tokens: 200 } }) {
  return {
    id: 'chatcmpl-up1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'real-model-1',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
    usage,
    system_fingerprint: 'fp_x',
  };
}

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return JSON.stringify({ id: 'chatcmpl-s1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'real-model-1', choices: [{ index: 0, delta, finish_reason: finish }] });
}
const usageChunk = JSON.stringify({ id: 'chatcmpl-s1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'real-model-1', choices: [], usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } });

/** igw in front of a real loopback OpenAI-compatible server, driven by the official SDK. */
describe('proxying to an OpenAI-compatible provider', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  let handler: FakeHandler = () => ({ json: completion('hello from upstream') });

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => handler(request));
    const config = upstreamConfig(upstream.url);
    // A second route for fallback tests, and a provider that refuses connections.
    (config['providers'] as Record<string, unknown>)['backup'] = { kind: 'openai', base_url: `${upstream.url}/backup`, timeout_ms: 2000 };
    (config['providers'] as Record<string, unknown>)['dead'] = { kind: 'openai', base_url: 'http://127.0.0.1:9/v1', timeout_ms: 1000 };
    (config['providers'] as Record<string, unknown>)['slow'] = { kind: 'openai', base_url: `${upstream.url}/slow`, timeout_ms: 300 };
    const models = config['models'] as Record<string, any>;
    models['two-routes'] = { type: 'chat', routes: [{ provider: 'up', upstream_model: 'first', priority: 1 }, { provider: 'backup', upstream_model: 'second', priority: 2 }] };
    models['dead-chat'] = { type: 'chat', routes: [{ provider: 'dead', upstream_model: 'x' }] };
    models['slow-chat'] = { type: 'chat', routes: [{ provider: 'slow', upstream_model: 'x' }] };
    // The openai kind has no rerank: its route must be skipped, not end the request.
    models['mixed-rerank'] = { type: 'reranker', routes: [{ provider: 'up', upstream_model: 'r', priority: 1 }, { provider: 'local', upstream_model: 'local-rerank', priority: 2 }] };
    igw = await startTestGateway(config);
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });
  afterEach(() => {
    handler = () => ({ json: completion('hello from upstream') });
  });

  it('non-stream: forwards the upstream model and key, never gateway-only fields; meters exactly', async () => {
    const before = upstream.requests.length;
    const result = (await igw.openai().chat.completions.create({
      model: 'up-chat',
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0.3,
      // @ts-expect-error igw-only fields
      preset: 'non_reasoning',
      request_id: 'corr-42',
    })) as any;
    const sent = upstream.requests[before]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-upstream-secret');
    expect(sent.body).toMatchObject({ model: 'real-model-1', temperature: 0.3, messages: [{ role: 'user', content: 'hi' }] });
    expect(sent.body).not.toHaveProperty('preset');
    expect(sent.body).not.toHaveProperty('request_id');
    expect(result.model).toBe('up-chat');
    expect(result.choices[0].message.content).toBe('hello from upstream');
    expect(result.usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: 500, cached_tokens: 200, prompt_tokens_details: { cached_tokens: 200 } });
    // (800 × 0.14 + 200 × 0.07 + 500 × 0.55) / 1e6 EUR = 0.000401 EUR; × 1000 energy units per EUR.
    expect(result.billing_cost).toEqual({ energy: '0.401', credits: '0.000401', paid_with: 'energy' });
    // (1.0 × 0.02 + 0.5 × 0.2) Wh × PUE 1.2 = 0.144 Wh.
    expect(result.environment_impact).toEqual({ energy_kwh: 0.000144, carbon_g_co2: 0.0072, water_liters: 0.000216, renewable_percent: 70, pue: 1.2, provider_id: 'up', location: 'FR' });
  });

  it('stream: always asks the upstream for usage; the client only gets it when it asked', async () => {
    handler = () => ({ sse: [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop'), usageChunk] });
    const before = upstream.requests.length;
    const plain = await igw.openai().chat.completions.create({ model: 'up-chat', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const plainChunks: any[] = [];
    for await (const part of plain) plainChunks.push(part);
    expect(upstream.requests[before]!.body.stream_options).toEqual({ include_usage: true });
    expect(plainChunks.map((part) => part.choices[0]?.delta?.content ?? '').join('')).toBe('Hello');
    expect(plainChunks.every((part) => part.usage == null && part.model === 'up-chat')).toBe(true);

    const withUsage = await igw.openai().chat.completions.create({ model: 'up-chat', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] });
    const parts: any[] = [];
    for await (const part of withUsage) parts.push(part);
    const last = parts.at(-1);
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 3 });
    // (10 × 0.14 + 3 × 0.55) / 1e6 EUR
    expect(last.billing_cost.credits).toBe('0.00000305');
  });

  it('stream: chunks are relayed as they arrive, not buffered', async () => {
    handler = () => ({ sse: [chunk({ role: 'assistant', content: 'first' }), chunk({ content: ' second' }), chunk({}, 'stop'), usageChunk], delayMs: 300 });
    const started = Date.now();
    const stream = await igw.openai().chat.completions.create({ model: 'up-chat', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    let firstAt = 0;
    for await (const part of stream) if (firstAt === 0 && part.choices[0]?.delta?.content) firstAt = Date.now() - started;
    const total = Date.now() - started;
    expect(total).toBeGreaterThanOrEqual(900);
    expect(firstAt).toBeLessThan(total - 500);
  });

  it.each([
    ['upstream 500', () => ({ status: 500, json: { error: { message: 'boom' } } }), 502, 'INFERENCE_3105'],
    ['upstream 429 with Retry-After', () => ({ status: 429, json: { error: { message: 'slow down' } }, headers: { 'retry-after': '7' } }), 429, 'INFERENCE_3108'],
    ['upstream 400 context length', () => ({ status: 400, json: { error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' } } }), 400, 'INFERENCE_3207'],
    ['upstream 401 (bad provider key)', () => ({ status: 401, json: { error: { message: 'Incorrect API key' } } }), 502, 'INFERENCE_3105'],
  ] as Array<[string, FakeHandler, number, string]>)('fault: %s → %s %s', async (_name, reply, status, code) => {
    handler = reply;
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(status);
    expect(response.json.error.code).toBe(code);
    expect(JSON.stringify(response.json)).not.toContain('sk-upstream-secret');
    if (code === 'INFERENCE_3108') expect(response.headers.get('retry-after')).toBe('7');
  });

  it('fault: connection refused → 502 INFERENCE_3105', async () => {
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'dead-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('INFERENCE_3105');
  });

  it('fault: upstream never answers → 504 INFERENCE_3107 within the provider timeout', async () => {
    handler = () => ({ hang: true });
    const started = Date.now();
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'slow-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(504);
    expect(response.json.error.code).toBe('INFERENCE_3107');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('fault: connection dropped mid-stream → an error event, never a hang', async () => {
    handler = () => ({ destroy: true, sseBefore: [chunk({ role: 'assistant', content: 'partial' })] });
    const stream = await igw.openai().chat.completions.create({ model: 'up-chat', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const received: string[] = [];
    await expect(
      (async () => {
        for await (const part of stream) received.push(part.choices[0]?.delta?.content ?? '');
      })(),
    ).rejects.toThrow();
    expect(received.join('')).toBe('partial');
  });

  it('fallback: a failing first route falls through to the next', async () => {
    handler = (request) => (request.path.startsWith('/v1/backup') ? { json: completion('from backup') } : { status: 503, json: { error: { message: 'down' } } });
    const result = await igw.openai().chat.completions.create({ model: 'two-routes', messages: [{ role: 'user', content: 'hi' }] });
    expect(result.choices[0]!.message.content).toBe('from backup');
  });

  it('client disconnect aborts the upstream call', async () => {
    handler = () => ({ sse: Array.from({ length: 50 }, (_, index) => chunk({ content: `t${index} ` })), delayMs: 100 });
    const before = upstream.requests.length;
    const controller = new AbortController();
    const stream = await igw.openai().chat.completions.create({ model: 'up-chat', stream: true, messages: [{ role: 'user', content: 'hi' }] }, { signal: controller.signal });
    let count = 0;
    try {
      for await (const _part of stream) {
        count += 1;
        if (count === 3) controller.abort();
      }
    } catch {
      // the SDK may surface the abort as an error; either way the client is gone
    }
    expect(count).toBeLessThan(10);
    const sent = upstream.requests[before]!;
    await Promise.race([sent.closed, new Promise((resolve) => setTimeout(resolve, 2000))]);
    expect(sent.clientClosedEarly).toBe(true);
  });

  it('billing: refused up front when balances are exhausted, nothing sent upstream', async () => {
    await createAccount(igw.gateway.app.store, igw.config, 'poor');
    await setAccount(igw.gateway.app.store, igw.config, 'poor', { energy: '0.1', credits: '0' });
    const key = await igw.newKey({ account: 'poor' });
    const first = await postJson(`${igw.url}/v1/chat/completions`, key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(first.status).toBe(200);
    // 0.401 energy units against 0.1: paid from energy (credits are empty) and the balance goes negative.
    expect(first.json.billing_cost.paid_with).toBe('energy');
    expect(igw.gateway.app.store.accounts.get('poor')!.energy).toBe('-0.301');
    const before = upstream.requests.length;
    const second = await postJson(`${igw.url}/v1/chat/completions`, key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(second.status).toBe(402);
    expect(second.json.error.code).toBe('BILLING_2001');
    expect(upstream.requests.length).toBe(before);
  });

  it('billing: a plan without api_usage pays credits, and is refused with BILLING_2003 when they run out', async () => {
    await createAccount(igw.gateway.app.store, igw.config, 'creditor', 'free');
    await setAccount(igw.gateway.app.store, igw.config, 'creditor', { energy: '1000', credits: '0.0005' });
    const key = await igw.newKey({ account: 'creditor' });
    const first = await postJson(`${igw.url}/v1/chat/completions`, key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(first.json.billing_cost).toEqual({ energy: '0.401', credits: '0.000401', paid_with: 'credits' });
    expect(igw.gateway.app.store.accounts.get('creditor')).toMatchObject({ energy: '1000', credits: '0.000099' });
    await postJson(`${igw.url}/v1/chat/completions`, key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] });
    const refused = await postJson(`${igw.url}/v1/chat/completions`, key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(refused.json.error.code).toBe('BILLING_2003');
  });

  it('embeddings through the provider: order kept, base64 decoded by the SDK, metered', async () => {
    handler = (request) => ({
      json: {
        object: 'list',
        model: 'real-embed-1',
        data: (request.body.input as string[]).map((_text, index) => ({ object: 'embedding', index, embedding: [index, 0.5, -0.25] })).reverse(),
        usage: { prompt_tokens: 6, total_tokens: 6 },
      },
    });
    const result = (await igw.openai().embeddings.create({ model: 'up-embed', input: ['a', 'b'] })) as any;
    expect(result.data.map((entry: any) => entry.embedding)).toEqual([
      [0, 0.5, -0.25],
      [1, 0.5, -0.25],
    ]);
    expect(result.usage).toEqual({ prompt_tokens: 6, total_tokens: 6 });
    expect(result.billing_cost.credits).toBe('0.00000012');
    expect(upstream.requests.at(-1)!.body.model).toBe('real-embed-1');
  });

  it('reasoning_effort is ignored (not forwarded) for a non-reasoning model', async () => {
    const before = upstream.requests.length;
    await igw.openai().chat.completions.create({ model: 'up-chat', reasoning_effort: 'high', messages: [{ role: 'user', content: 'hi' }] });
    expect(upstream.requests[before]!.body).not.toHaveProperty('reasoning_effort');
  });

  it('a route whose provider cannot serve the endpoint is skipped', async () => {
    const response = await postJson(`${igw.url}/v1/rerank`, igw.key, { model: 'mixed-rerank', query: 'fox', documents: ['a fox', 'a dog'] });
    expect(response.status).toBe(200);
    expect(response.json.results[0].index).toBe(0);
  });

  it('x-igw-overhead-ms reports gateway time without the provider\'s', async () => {
    handler = () => new Promise((resolve) => setTimeout(() => resolve({ json: completion('slow but fine') }), 300));
    const started = performance.now();
    const response = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] });
    const total = performance.now() - started;
    const overhead = Number(response.headers.get('x-igw-overhead-ms'));
    expect(response.status).toBe(200);
    expect(total).toBeGreaterThanOrEqual(300);
    expect(overhead).toBeGreaterThanOrEqual(0);
    expect(overhead).toBeLessThan(total - 250);
    const failed = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'nope', messages: [{ role: 'user', content: 'hi' }] });
    expect(Number(failed.headers.get('x-igw-overhead-ms'))).toBeGreaterThanOrEqual(0);
  });

  it('request log: one JSONL line per request with model, provider, tokens and cost', async () => {
    await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'up-chat', messages: [{ role: 'user', content: 'log me' }] });
    // Through the store, whichever holds the log (test matrix: JSONL files or the PostgreSQL table).
    const lines = await igw.gateway.app.store.requestLog.readSince(0);
    const entry = lines.filter((line) => line.model === 'up-chat' && line.status === 200).at(-1);
    expect(entry).toMatchObject({ endpoint: '/v1/chat/completions', provider: 'up', route: 'up/real-model-1', input_tokens: 1000, output_tokens: 500, eur: '0.000401' });
    expect(lines.some((line) => line.status === 402 && line.error_code === 'BILLING_2001')).toBe(true);
  });
});
