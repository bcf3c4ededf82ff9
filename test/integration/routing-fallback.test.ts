import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

function completion(content: string) {
  return {
    id: 'chatcmpl-fallback',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'upstream',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  };
}

function chunk(content: string, finish: string | null = null) {
  return JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'upstream', choices: [{ index: 0, delta: { content }, finish_reason: finish }] });
}

// Upstream usage, so the gateway need not count tokens itself (which would load the tokenizer).
const usageChunk = JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'upstream', choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });

/** Two routes per model, on providers "first" (priority 1) and "second" (priority 2) of one fake upstream. */
function twoRoutes(upstreamModel: string) {
  return {
    type: 'chat',
    capabilities: { streaming: true },
    routes: [
      { provider: 'first', upstream_model: upstreamModel, priority: 1 },
      { provider: 'second', upstream_model: upstreamModel, priority: 2 },
    ],
  };
}

/**
 * Route fallback through the real server (DESIGN §2 "Routing"). Each test uses its own model (its
 * own upstream_model, so its own route health keys), so cooldowns one test leaves behind cannot
 * reorder another's routes once route health is wired into the endpoints.
 */
describe('routing: fallback through the gateway', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  let handler: FakeHandler = () => ({ json: completion('default') });

  /** Which route each upstream request of one model went to, in order: "first" or "second". */
  const routesCalled = (upstreamModel: string) =>
    upstream.requests.filter((request) => request.body?.model === upstreamModel).map((request) => (request.path.startsWith('/v1/first/') ? 'first' : 'second'));

  const ask = (model: string) => postJson(`${igw.url}/v1/chat/completions`, igw.key, { model, messages: [{ role: 'user', content: 'hi' }] });

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => handler(request));
    igw = await startTestGateway({
      providers: {
        first: { kind: 'openai', base_url: `${upstream.url}/first`, timeout_ms: 2000 },
        second: { kind: 'openai', base_url: `${upstream.url}/second`, timeout_ms: 2000 },
      },
      models: {
        'fall-503': twoRoutes('m-503'),
        'fall-429': twoRoutes('m-429'),
        'fall-all': twoRoutes('m-all'),
        'fall-stream': twoRoutes('m-stream'),
        'fall-cooldown': twoRoutes('m-cooldown'),
        'single-route': { type: 'chat', routes: [{ provider: 'first', upstream_model: 'm-single' }] },
      },
    });
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });

  it('a 503 from the first route falls through to the second', async () => {
    handler = (request) => (request.path.startsWith('/v1/first/') ? { status: 503, json: { error: { message: 'overloaded' } } } : { json: completion('from second') });
    const response = await ask('fall-503');
    expect(response.status).toBe(200);
    expect(response.json.choices[0].message.content).toBe('from second');
    expect(response.json.environment_impact.provider_id).toBe('second');
    expect(routesCalled('m-503')).toEqual(['first', 'second']);
  });

  it('a 429 with a long Retry-After falls through to the second route at once', async () => {
    handler = (request) =>
      request.path.startsWith('/v1/first/') ? { status: 429, json: { error: { message: 'slow down' } }, headers: { 'retry-after': '30' } } : { json: completion('from second') };
    const started = Date.now();
    const response = await ask('fall-429');
    expect(response.status).toBe(200);
    expect(response.json.choices[0].message.content).toBe('from second');
    expect(routesCalled('m-429')).toEqual(['first', 'second']);
    // 30 s is beyond the backoff cap: the next route is tried without waiting for it.
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('every route failing → 502 INFERENCE_3103 listing each attempt', async () => {
    handler = (request) =>
      request.path.startsWith('/v1/first/') ? { status: 503, json: { error: { message: 'overloaded' } } } : { status: 429, json: { error: { message: 'slow down' } }, headers: { 'retry-after': '30' } };
    const response = await ask('fall-all');
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('INFERENCE_3103');
    expect(response.json.error.details.attempts).toEqual([
      { provider: 'first', code: 'INFERENCE_3105', message: expect.any(String) },
      { provider: 'second', code: 'INFERENCE_3108', message: expect.any(String) },
    ]);
    expect(routesCalled('m-all')).toEqual(['first', 'second']);
  });

  it('a stream whose first route fails before its first chunk falls through too', async () => {
    handler = (request) => (request.path.startsWith('/v1/first/') ? { status: 503, json: { error: { message: 'overloaded' } } } : { sse: [chunk('from '), chunk('second', 'stop'), usageChunk] });
    const stream = await igw.openai().chat.completions.create({ model: 'fall-stream', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    for await (const part of stream) text += part.choices[0]?.delta?.content ?? '';
    expect(text).toBe('from second');
    expect(routesCalled('m-stream')).toEqual(['first', 'second']);
  });

  it('a model with a single route gets one more try after a 5xx', async () => {
    let calls = 0;
    handler = () => {
      calls += 1;
      return calls === 1 ? { status: 502, json: { error: { message: 'bad gateway' } } } : { json: completion('second try') };
    };
    const response = await ask('single-route');
    expect(response.status).toBe(200);
    expect(response.json.choices[0].message.content).toBe('second try');
    expect(routesCalled('m-single')).toEqual(['first', 'first']);
  });

  it('a route that just failed is tried last on the next request (cooldown), and the healthy one first', async () => {
    handler = (request) => (request.path.startsWith('/v1/first/') ? { status: 503, json: { error: { message: 'overloaded' } } } : { json: completion('from second') });
    expect((await ask('fall-cooldown')).status).toBe(200);
    expect(routesCalled('m-cooldown')).toEqual(['first', 'second']);

    // "first" would answer now, but it is cooling down (5 s after one failure): "second" leads.
    handler = () => ({ json: completion('anyone') });
    const response = await ask('fall-cooldown');
    expect(response.status).toBe(200);
    expect(response.json.environment_impact.provider_id).toBe('second');
    expect(routesCalled('m-cooldown')).toEqual(['first', 'second', 'second']);
  });
});
