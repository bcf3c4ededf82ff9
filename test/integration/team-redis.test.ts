import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { eventually, startTeam } from '../helpers/team.js';

function completion(model: string) {
  return {
    id: 'chatcmpl-redis',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
  };
}

const LIMIT = 10;

/** Team mode (issue 19, DESIGN §4): rate limits and route cooldowns shared by two gateways through one real Redis. */
describe('team mode: two gateways on one Redis', () => {
  let postgres: TestPostgres;
  let redis: TestRedis;
  let upstream: FakeUpstream;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
    // Route "first" is down (503); "second" answers.
    upstream = await startFakeUpstream((request) => (request.body?.model === 'first' ? { status: 503, json: { error: { message: 'down' } } } : { json: completion(String(request.body?.model)) }));
    const config = upstreamConfig(upstream.url, { plans: { developer: { benefits: ['api_usage'], requests_per_minute: LIMIT } } });
    (config['providers'] as Record<string, unknown>)['backup'] = { kind: 'openai', base_url: `${upstream.url}/backup`, timeout_ms: 2000 };
    (config['models'] as Record<string, unknown>)['two-routes'] = {
      type: 'chat',
      routes: [
        { provider: 'up', upstream_model: 'first', priority: 1 },
        { provider: 'backup', upstream_model: 'second', priority: 2 },
      ],
    };
    const team = await startTeam(postgres, config, 2, redis.url);
    [a, b] = team.gateways as [TestGateway, TestGateway];
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await upstream?.close();
    await Promise.all([postgres?.stop(), redis?.stop()]);
  });

  it(`a limit of ${LIMIT} per minute admits exactly ${LIMIT} across both instances`, async () => {
    const key = await a.newKey({ name: 'limited' });
    await eventually(() => b.gateway.app.store.keys.list().some((record) => record.name === 'limited'));
    const results = await Promise.all(
      Array.from({ length: 3 * LIMIT }, (_, index) => postJson(`${(index % 2 === 0 ? a : b).url}/v1/chat/completions`, key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] })),
    );
    const admitted = results.filter((result) => result.status === 200);
    const refused = results.filter((result) => result.status === 429);
    expect(admitted).toHaveLength(LIMIT);
    expect(refused).toHaveLength(2 * LIMIT);
    for (const result of refused) {
      expect(result.json.error.code).toBe('AUTH_1028');
      expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(result.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    }
    // Both instances admitted some: the count really is shared, not split per instance.
    const remaining = admitted.map((result) => Number(result.headers.get('x-ratelimit-remaining-requests'))).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, index) => index));
  });

  it('a route that fails on one instance is tried last on the other too', async () => {
    const key = await b.newKey({ name: 'router' });
    await eventually(() => a.gateway.app.store.keys.list().some((record) => record.name === 'router'));
    const first = await postJson(`${a.url}/v1/chat/completions`, key, { model: 'two-routes', messages: [{ role: 'user', content: 'hi' }] });
    expect(first.status).toBe(200);
    expect(a.gateway.app.routeHealth.snapshot().routes['up/first']?.coolingDown).toBe(true);
    await eventually(() => b.gateway.app.routeHealth.snapshot().routes['up/first']?.coolingDown === true);
    const before = upstream.requests.length;
    const second = await postJson(`${b.url}/v1/chat/completions`, key, { model: 'two-routes', messages: [{ role: 'user', content: 'hi' }] });
    expect(second.status).toBe(200);
    // B never tried the cooling route: its only upstream call went to "second".
    expect(upstream.requests.slice(before).map((request) => request.body?.model)).toEqual(['second']);
  });

  it('an unreachable Redis at start is a clear error', async () => {
    await expect(startTestGateway({ redis: { url: 'redis://127.0.0.1:9' } })).rejects.toThrow(/cannot use Redis at redis:\/\/127\.0\.0\.1:9 \(redis\.url in the config\)/);
  });
});
