import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createKey } from '../../src/admin/keys-admin.js';
import { startGateway, type Gateway } from '../../src/app/gateway.js';
import { buildConfig } from '../../src/config/load.js';
import { readRequestLog } from '../../src/store/request-log.js';
import { silentLogger } from '../../src/util/logger.js';
import { waitFor } from '../helpers/async.js';
import { startChatUpstream } from '../helpers/batch-cli.js';
import { chatLines, fileLines, uploadBatchFile, waitForBatch } from '../helpers/batches.js';
import type { FakeUpstream } from '../helpers/fake-upstream.js';
import { startTestGateway, upstreamConfig } from '../helpers/gateway.js';

/** A slow OpenAI-compatible upstream: every chat answer takes `delayMs`. */
const slowUpstream = (delayMs: number) => startChatUpstream(delayMs);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Harness {
  dataDir: string;
  upstream: FakeUpstream;
  start(): Promise<{ gateway: Gateway; client: OpenAI }>;
}

async function harness(delayMs: number, concurrency: number, extra: Record<string, unknown> = {}): Promise<Harness> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'igw-batch-runner-'));
  const upstream = await slowUpstream(delayMs);
  cleanups.push(async () => {
    await upstream.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const config = buildConfig({ ...upstreamConfig(upstream.url), batches: { concurrency, max_requests_per_file: 50_000 }, ...extra }, null, {});
  let key: string | undefined;
  return {
    dataDir,
    upstream,
    async start() {
      const gateway = await startGateway({ dataDir, config, port: 0, host: '127.0.0.1', logger: silentLogger });
      let closed = false;
      cleanups.push(async () => {
        if (!closed) await gateway.close();
      });
      const originalClose = gateway.close;
      gateway.close = async () => {
        closed = true;
        await originalClose();
      };
      key ??= (await createKey(gateway.app.store, config, { name: 'batch' })).key;
      return { gateway, client: new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 10_000 }) };
    },
  };
}

async function waitForCounts(client: OpenAI, id: string, atLeast: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const counts = (await client.batches.retrieve(id)).request_counts as unknown as { succeeded: number; errored: number };
    if (counts.succeeded + counts.errored >= atLeast) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`batch ${id} did not reach ${atLeast} finished rows`);
}

function upstreamCallsPerRow(upstream: FakeUpstream): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of upstream.requests) {
    const content = String(request.body?.messages?.at(-1)?.content);
    counts.set(content, (counts.get(content) ?? 0) + 1);
  }
  return counts;
}

describe('batch runner', () => {
  it('resumes after a restart: no row lost, no written row run again, request_counts live', async () => {
    const rows = 24;
    const concurrency = 3;
    const h = await harness(60, concurrency);
    const first = await h.start();
    const id = (await first.client.batches.create({ input_file_id: await uploadBatchFile(first.client, chatLines(rows, 'up-chat')), endpoint: '/v1/chat/completions', completion_window: '24h' })).id;
    await waitForCounts(first.client, id, 6);
    const before = (await first.client.batches.retrieve(id)).request_counts as unknown as { succeeded: number };
    expect(before.succeeded).toBeLessThan(rows);
    await first.gateway.close();
    const callsAtStop = h.upstream.requests.length;
    expect(callsAtStop).toBeLessThan(rows);

    const second = await h.start();
    const done = await waitForBatch(second.client, id);
    expect(done.status).toBe('succeeded');
    expect(done.request_counts as unknown as Record<string, number>).toMatchObject({ succeeded: rows, errored: 0, processing: 0 });
    const output = await fileLines(second.client, done.output_file_id);
    expect(output.map((line) => line.custom_id).sort()).toEqual(Array.from({ length: rows }, (_, index) => `row-${index}`).sort());
    expect(output.find((line) => line.custom_id === 'row-7').response.body.choices[0].message.content).toBe('echo hello 7');
    // Only rows in flight at the stop (at most `concurrency`) may have gone upstream twice.
    const repeated = [...upstreamCallsPerRow(h.upstream).values()].filter((count) => count > 1);
    expect(repeated.length).toBeLessThanOrEqual(concurrency);
    expect(repeated.every((count) => count === 2)).toBe(true);
    expect(h.upstream.requests.length).toBeLessThanOrEqual(rows + concurrency);
    // The working log of the finished batch is gone; its results live in the output file.
    await second.gateway.close();
    expect(await readdir(path.join(h.dataDir, 'batches'))).toEqual([]);
  }, 30_000);

  it('never runs more than batches.concurrency rows at once', async () => {
    const h = await harness(40, 2);
    const { client } = await h.start();
    let active = 0;
    let peak = 0;
    const watch = setInterval(() => {
      active = h.upstream.requests.filter((request) => !request.replyFinished && !request.clientClosedEarly).length;
      peak = Math.max(peak, active);
    }, 5);
    const id = (await client.batches.create({ input_file_id: await uploadBatchFile(client, chatLines(12, 'up-chat')), endpoint: '/v1/chat/completions', completion_window: '24h' })).id;
    await waitForBatch(client, id);
    clearInterval(watch);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(2);
  }, 30_000);

  it('more than 10 rows at once share the batch\'s abort signal without a listener-leak warning', async () => {
    // Each row's upstream call listens on the batch's one signal; Node warns past 10 listeners on an
    // EventTarget ("MaxListenersExceededWarning"), which would land in the terminal of `igw serve`.
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    cleanups.push(async () => void process.off('warning', onWarning));
    const h = await harness(80, 16);
    const { client } = await h.start();
    const id = (await client.batches.create({ input_file_id: await uploadBatchFile(client, chatLines(32, 'up-chat')), endpoint: '/v1/chat/completions', completion_window: '24h' })).id;
    const done = await waitForBatch(client, id);
    expect(done.request_counts as unknown as Record<string, number>).toMatchObject({ succeeded: 32, errored: 0 });
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    expect(warnings.filter((text) => text.includes('MaxListeners'))).toEqual([]);
  }, 30_000);

  it('cancel mid-run: cancelling → cancelled, finished rows kept, the rest listed as not run', async () => {
    const rows = 30;
    const h = await harness(80, 2);
    const { client } = await h.start();
    const id = (await client.batches.create({ input_file_id: await uploadBatchFile(client, chatLines(rows, 'up-chat')), endpoint: '/v1/chat/completions', completion_window: '24h' })).id;
    await waitForCounts(client, id, 4);
    const cancelling = await client.batches.cancel(id);
    expect(['cancelling', 'cancelled']).toContain(cancelling.status);
    expect(cancelling.cancelling_at).not.toBeNull();
    const done = await waitForBatch(client, id);
    expect(done.status).toBe('cancelled');
    expect(done.cancelled_at).not.toBeNull();
    const counts = done.request_counts as unknown as { succeeded: number; errored: number; processing: number };
    expect(counts.succeeded).toBeGreaterThanOrEqual(4);
    expect(counts.succeeded).toBeLessThan(rows);
    const output = await fileLines(client, done.output_file_id);
    const errors = await fileLines(client, done.error_file_id);
    expect(output).toHaveLength(counts.succeeded);
    expect(errors.every((line) => line.error.code === 'batch_cancelled' && line.response === null)).toBe(true);
    expect(new Set([...output, ...errors].map((line) => line.custom_id)).size).toBe(rows);
    // Cancelling again is harmless.
    expect((await client.batches.cancel(id)).status).toBe('cancelled');
  }, 30_000);

  it('expires at the end of the completion window, keeping finished rows', async () => {
    const rows = 40;
    const h = await harness(150, 1);
    const { client } = await h.start();
    const created = await client.batches.create({ input_file_id: await uploadBatchFile(client, chatLines(rows, 'up-chat')), endpoint: '/v1/chat/completions', completion_window: '2s' as '24h' });
    expect(created.expires_at).toBe(created.created_at + 2);
    const done = await waitForBatch(client, created.id);
    expect(done.status).toBe('expired');
    expect(done.expired_at).not.toBeNull();
    const output = await fileLines(client, done.output_file_id);
    const errors = await fileLines(client, done.error_file_id);
    expect(output.length).toBeGreaterThan(0);
    expect(output.length + errors.length).toBe(rows);
    expect(errors.every((line) => line.error.code === 'batch_expired')).toBe(true);
  }, 30_000);

  it('a batch cancelled while the gateway is down ends cancelled at the next start', async () => {
    const h = await harness(50, 1);
    const first = await h.start();
    const id = (await first.client.batches.create({ input_file_id: await uploadBatchFile(first.client, chatLines(20, 'up-chat')), endpoint: '/v1/chat/completions', completion_window: '24h' })).id;
    await waitForCounts(first.client, id, 2);
    await first.client.batches.cancel(id);
    await first.gateway.close();
    const second = await h.start();
    const done = await waitForBatch(second.client, id);
    expect(done.status).toBe('cancelled');
  }, 30_000);

  it('a batch whose input file is gone at resume fails, still delivering the rows it finished', async () => {
    const h = await harness(50, 1);
    const first = await h.start();
    const inputId = await uploadBatchFile(first.client, chatLines(30, 'up-chat'));
    const id = (await first.client.batches.create({ input_file_id: inputId, endpoint: '/v1/chat/completions', completion_window: '24h' })).id;
    await waitForCounts(first.client, id, 3);
    await first.client.files.delete(inputId);
    await first.gateway.close();
    const second = await h.start();
    const done = await waitForBatch(second.client, id);
    expect(done.status).toBe('failed');
    expect(done.failed_at).not.toBeNull();
    expect(done.errors?.data?.[0]).toMatchObject({ code: 'INFERENCE_3302' });
    expect((await fileLines(second.client, done.output_file_id)).length).toBeGreaterThanOrEqual(3);
  }, 30_000);

  it('rows go through routing (:batch flavor), billing and the request log, outside the per-minute rate limit', async () => {
    const h = await harness(0, 4, { plans: { developer: { benefits: ['advanced_models', 'api_usage'], requests_per_minute: 3 } } });
    const { gateway, client } = await h.start();
    const rows = 12;
    const text = Array.from({ length: rows }, (_, index) => JSON.stringify({ custom_id: `c${index}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'up-chat:batch', messages: [{ role: 'user', content: `hi ${index}` }] } })).join('\n');
    const id = (await client.batches.create({ input_file_id: await uploadBatchFile(client, text), endpoint: '/v1/chat/completions', completion_window: '24h' })).id;
    // Polling would hit the 3-per-minute limit: wait on the service itself.
    const deadline = Date.now() + 15_000;
    while ((await gateway.app.batches.get('default', id))?.status !== 'succeeded' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const record = (await gateway.app.batches.get('default', id))!;
    expect(record).toMatchObject({ status: 'succeeded', succeeded: rows, errored: 0 });
    expect(h.upstream.requests).toHaveLength(rows);
    expect(h.upstream.requests[0]!.body.model).toBe('real-model-1');
    // The `igw serve` dashboard shows the run with its progress and outcome.
    const task = () => gateway.app.activity.snapshot().tasks.find((candidate) => candidate.kind === 'batch' && candidate.id === id);
    await waitFor(() => task()?.status === 'completed');
    expect(task()).toMatchObject({ label: 'input.jsonl /v1/chat/completions', done: rows, failed: 0, total: rows });
    await gateway.app.store.requestLog.flush();
    const logged = (await readRequestLog(gateway.app.store.logFolder, 0)).filter((entry) => entry.endpoint === '/v1/chat/completions');
    expect(logged).toHaveLength(rows);
    expect(logged.every((entry) => entry.status === 200 && entry.model === 'up-chat:batch' && entry.account === 'default' && Number(entry.eur) > 0)).toBe(true);
  }, 30_000);

  it('billing is checked per row: an account out of credits gets BILLING_2003 rows, the batch still succeeds', async () => {
    const gw = await startTestGateway({ default_plan: 'free', plans: { free: { benefits: [], requests_per_minute: 600 } }, billing: { initial_credits: '0', initial_energy: '0' } });
    cleanups.push(() => gw.close());
    const client = gw.openai();
    const batch = await waitForBatch(client, (await client.batches.create({ input_file_id: await uploadBatchFile(client, chatLines(2)), endpoint: '/v1/chat/completions', completion_window: '24h' })).id);
    expect(batch.status).toBe('succeeded');
    const errors = await fileLines(client, batch.error_file_id);
    expect(errors.map((line) => line.error.code)).toEqual(['BILLING_2003', 'BILLING_2003']);
  }, 30_000);
});
