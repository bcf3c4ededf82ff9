import { createAccount } from '../../src/admin/accounts-admin.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatLine, uploadBatchFile, waitForBatch } from '../helpers/batches.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { sample } from '../helpers/metrics-text.js';

async function scrape(url: string): Promise<{ status: number; contentType: string | null; text: string }> {
  const response = await fetch(`${url}/metrics`);
  return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
}

/** Issue 19 item 4: GET /metrics in Prometheus text format behind `server.metrics: true`. */
describe('GET /metrics', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  beforeAll(async () => {
    upstream = await startFakeUpstream((request) =>
      request.body?.messages?.[0]?.content === 'fail'
        ? { status: 503, json: { error: { message: 'overloaded' } } }
        : { json: { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'real-model-1', choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 } } },
    );
    igw = await startTestGateway(upstreamConfig(upstream.url, { server: { metrics: true }, plans: { tiny: { benefits: ['advanced_models', 'api_usage'], requests_per_minute: 1 } } }));
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });

  it('counts requests, latency, tokens, cost, energy and upstream failures by endpoint, model, route and status', async () => {
    const ok = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'up-chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.status).toBe(200);
    const failed = await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'up-chat', messages: [{ role: 'user', content: 'fail' }] });
    expect(failed.status).toBe(502);
    expect((await postJson(`${igw.url}/v1/chat/completions`, igw.key, { model: 'local-echo', messages: [{ role: 'user', content: 'x' }] })).status).toBe(200);

    const { status, contentType, text } = await scrape(igw.url);
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const chat = { endpoint: '/v1/chat/completions', model: 'up-chat', route: 'up/real-model-1' };
    expect(sample(text, 'igw_requests_total', { ...chat, status: '200' })).toBe(1);
    expect(sample(text, 'igw_requests_total', { endpoint: '/v1/chat/completions', model: 'local-echo', status: '200' })).toBe(1);
    expect(sample(text, 'igw_request_duration_seconds_count', { ...chat, status: '200' })).toBe(1);
    expect(sample(text, 'igw_request_duration_seconds_bucket', { ...chat, status: '200', le: '+Inf' })).toBe(1);
    expect(sample(text, 'igw_tokens_total', { model: 'up-chat', route: 'up/real-model-1', direction: 'input' })).toBe(1000);
    expect(sample(text, 'igw_tokens_total', { model: 'up-chat', route: 'up/real-model-1', direction: 'output' })).toBe(200);
    // 1000 × 0.14 + 200 × 0.55 per million = 0.00025 EUR, the same figure billing_cost reported.
    expect(sample(text, 'igw_cost_eur_total', { model: 'up-chat', route: 'up/real-model-1' })).toBeCloseTo(Number(ok.json.billing_cost.credits), 12);
    expect(sample(text, 'igw_energy_kwh_total', { model: 'up-chat', route: 'up/real-model-1' })).toBeGreaterThan(0);
    // One route, retried once (routing/fallback): two failed attempts, one failed request.
    expect(sample(text, 'igw_upstream_failures_total', { provider: 'up', code: 'INFERENCE_3105' })).toBe(2);
    expect(sample(text, 'igw_requests_total', { endpoint: '/v1/chat/completions', model: 'up-chat', status: '502' })).toBe(1);
    expect(sample(text, 'igw_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts rate-limit refusals', async () => {
    await createAccount(igw.gateway.app.store, igw.config, 'metrics-tiny', 'tiny');
    const key = await igw.newKey({ account: 'metrics-tiny' });
    const body = { model: 'local-echo', messages: [{ role: 'user', content: 'x' }] };
    expect((await postJson(`${igw.url}/v1/chat/completions`, key, body)).status).toBe(200);
    expect((await postJson(`${igw.url}/v1/chat/completions`, key, body)).status).toBe(429);
    const { text } = await scrape(igw.url);
    expect(sample(text, 'igw_rate_limited_total', { endpoint: '/v1/chat/completions' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'igw_requests_total', { endpoint: '/v1/chat/completions', status: '429' })).toBeGreaterThanOrEqual(1);
  });

  it('counts batch rows by state and finished batches', async () => {
    const client = igw.openai();
    const input = [chatLine('a', 'one'), chatLine('b', 'two'), JSON.stringify({ custom_id: 'c', method: 'POST', url: '/v1/chat/completions', body: { model: 'up-chat', messages: [{ role: 'user', content: 'fail' }] } })].join('\n');
    const fileId = await uploadBatchFile(client, input);
    const batch = await client.batches.create({ input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const done = await waitForBatch(client, batch.id);
    expect(done.request_counts).toMatchObject({ completed: 2, failed: 1 });
    // The batch's record says completed a moment before its run ends its dashboard task (after
    // the working log is removed), so the task counter is read once it has caught up.
    let { text } = await scrape(igw.url);
    for (let tries = 0; tries < 100 && sample(text, 'igw_tasks_total', { kind: 'batch', state: 'completed' }) === undefined; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      ({ text } = await scrape(igw.url));
    }
    expect(sample(text, 'igw_batch_rows_total', { state: 'succeeded' })).toBe(2);
    expect(sample(text, 'igw_batch_rows_total', { state: 'errored' })).toBe(1);
    expect(sample(text, 'igw_tasks_total', { kind: 'batch', state: 'completed' })).toBe(1);
    expect(sample(text, 'igw_tasks_running', { kind: 'batch' })).toBe(0);
  });
});

describe('GET /metrics when server.metrics is off (the default)', () => {
  let igw: TestGateway;
  beforeAll(async () => {
    igw = await startTestGateway();
  });
  afterAll(async () => igw.close());

  it('is an unknown path that says how to turn it on', async () => {
    const { status, text } = await scrape(igw.url);
    expect(status).toBe(404);
    expect(JSON.parse(text).error).toMatchObject({ code: 'RESOURCE_5404' });
    expect(JSON.parse(text).error.message).toContain('"metrics": true');
  });
});
