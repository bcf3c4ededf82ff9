import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/admin/accounts-admin.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { sample } from '../helpers/metrics-text.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { eventually, startTeam } from '../helpers/team.js';

const LIMIT = 2;
const chat = { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] };

async function scrape(gateway: TestGateway): Promise<string> {
  const response = await fetch(`${gateway.url}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/**
 * /metrics in team mode (issue 19 item 4): two gateways on one PostgreSQL and one Redis. Counters
 * are each instance's own (a team's Prometheus sums them); a refusal by the shared rate limit is
 * counted by the instance that refused.
 */
describe('team mode: /metrics on two gateways', () => {
  let postgres: TestPostgres;
  let redis: TestRedis;
  let upstream: FakeUpstream;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
    upstream = await startFakeUpstream(() => ({
      json: { id: 'chatcmpl-m', object: 'chat.completion', created: 1, model: 'real-model-1', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 } },
    }));
    const config = upstreamConfig(upstream.url, { server: { metrics: true }, plans: { tiny: { benefits: ['advanced_models', 'api_usage'], requests_per_minute: LIMIT } } });
    const team = await startTeam(postgres, config, 2, redis.url);
    [a, b] = team.gateways as [TestGateway, TestGateway];
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await upstream?.close();
    await Promise.all([postgres?.stop(), redis?.stop()]);
  });

  it('requests, tokens and EUR on the instance that served them; the shared limit’s refusals where they were refused', async () => {
    await createAccount(a.gateway.app.store, a.config, 'tiny-team', 'tiny');
    const key = await a.newKey({ account: 'tiny-team', name: 'tiny-key' });
    await eventually(() => b.gateway.app.store.keys.list().some((record) => record.name === 'tiny-key'));
    const served = [];
    for (let index = 0; index < LIMIT; index += 1) served.push(await postJson(`${a.url}/v1/chat/completions`, key, chat));
    expect(served.map((answer) => answer.status)).toEqual([200, 200]);
    // B never served this key, yet its limit is spent: Redis holds one count for the team.
    for (let index = 0; index < 2; index += 1) {
      const refused = await postJson(`${b.url}/v1/chat/completions`, key, chat);
      expect([refused.status, refused.json.error?.code]).toEqual([429, 'AUTH_1028']);
    }

    const [onA, onB] = await Promise.all([scrape(a), scrape(b)]);
    const route = { endpoint: '/v1/chat/completions', model: 'up-chat', route: 'up/real-model-1' };
    expect(sample(onA, 'igw_requests_total', { ...route, status: '200' })).toBe(LIMIT);
    expect(sample(onB, 'igw_requests_total', { ...route, status: '200' })).toBeUndefined();
    expect(sample(onA, 'igw_tokens_total', { model: 'up-chat', route: 'up/real-model-1', direction: 'input' })).toBe(1000 * LIMIT);
    const eur = served.reduce((sum, answer) => sum + Number(answer.json.billing_cost.credits), 0);
    expect(sample(onA, 'igw_cost_eur_total', { model: 'up-chat', route: 'up/real-model-1' })).toBeCloseTo(eur, 12);
    expect(sample(onA, 'igw_rate_limited_total', { endpoint: '/v1/chat/completions' })).toBeUndefined();
    expect(sample(onB, 'igw_rate_limited_total', { endpoint: '/v1/chat/completions' })).toBe(2);
    expect(sample(onB, 'igw_requests_total', { endpoint: '/v1/chat/completions', status: '429' })).toBe(2);
  });
});
