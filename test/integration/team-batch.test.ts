import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatUpstream } from '../helpers/batch-cli.js';
import { chatLine, chatLines, uploadBatchFile, waitForBatch } from '../helpers/batches.js';
import type { FakeUpstream } from '../helpers/fake-upstream.js';
import { upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startTeam } from '../helpers/team.js';

/** Rows this instance finished, from its own `/metrics` counter. */
async function rowsFinishedHere(gateway: TestGateway): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(/^igw_batch_rows_total\{state="(?:succeeded|errored)"\} (\d+)/gm)) total += Number(match[1]);
  return total;
}

/** The team-wide rows-by-state gauge (team mode's `/metrics`). */
async function rowGauge(gateway: TestGateway): Promise<Record<string, number>> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  return Object.fromEntries([...text.matchAll(/^igw_batch_rows\{state="(\w+)"\} (\d+)/gm)].map((match) => [match[1]!, Number(match[2])]));
}

/** A file's lines, read from the first instance that has it. */
async function lines(clients: OpenAI[], id: string | null | undefined): Promise<any[]> {
  if (!id) return [];
  for (const client of clients) {
    const text = await client.files.content(id).then((response) => response.text()).catch(() => undefined);
    if (text !== undefined) return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
  }
  throw new Error(`no instance serves file ${id}`);
}

/** Team mode (issue 19 item 2): batches in PostgreSQL, rows claimed with leases by every instance. */
describe('team mode: batches on two gateways sharing one PostgreSQL', () => {
  let postgres: TestPostgres;
  let upstream: FakeUpstream;
  let a: TestGateway;
  let b: TestGateway;
  let onA: OpenAI;
  let onB: OpenAI;
  const previousKey = process.env['IGW_DATA_KEY'];

  beforeAll(async () => {
    // Every instance of a team seals under the same data key.
    process.env['IGW_DATA_KEY'] = 'team-batch-test-data-key-long-enough-to-stretch';
    postgres = await startPostgres();
    upstream = await startChatUpstream(40);
    const team = await startTeam(postgres, { ...upstreamConfig(upstream.url), server: { metrics: true }, batches: { concurrency: 4, max_requests_per_file: 50_000, lease_seconds: 5 } });
    [a, b] = team.gateways as [TestGateway, TestGateway];
    onA = a.openai();
    onB = b.openai(a.key);
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await upstream?.close();
    await postgres?.stop();
    if (previousKey === undefined) delete process.env['IGW_DATA_KEY'];
    else process.env['IGW_DATA_KEY'] = previousKey;
  });

  it('a batch created on one instance is listed and retrieved on the other; both run its rows; the output has every custom_id once, in input order', async () => {
    const input = await uploadBatchFile(onA, `${chatLines(40, 'up-chat')}\n${chatLine('bad-row', 'fail', 'up-chat')}`);
    const created = await onA.batches.create({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { name: 'team' } });
    const listed = await onB.batches.list();
    expect(listed.data.map((batch) => batch.id)).toContain(created.id);
    const seen = await onB.batches.retrieve(created.id);
    expect(seen.request_counts?.total).toBe(41);
    const gauge = await rowGauge(b);
    expect(gauge['queued']! + gauge['running']! + gauge['succeeded']! + gauge['errored']!).toBe(41);

    const done = await waitForBatch(onB, created.id, undefined, 30_000);
    expect(done.status).toBe('succeeded');
    expect(done.request_counts).toMatchObject({ total: 41, completed: 40, failed: 1 });
    // Rows split across both instances (4 slots each, 40 ms a row).
    const [hereA, hereB] = [await rowsFinishedHere(a), await rowsFinishedHere(b)];
    expect(hereA).toBeGreaterThan(0);
    expect(hereB).toBeGreaterThan(0);
    expect(hereA + hereB).toBe(41);

    const output = await lines([onA, onB], done.output_file_id);
    expect(output.map((line) => line.custom_id)).toEqual(Array.from({ length: 40 }, (_, index) => `row-${index}`));
    expect(output.every((line) => line.response.status_code === 200 && line.response.body.choices[0].message.content === line.custom_id.replace('row-', 'echo hello '))).toBe(true);
    const errors = await lines([onA, onB], done.error_file_id);
    expect(errors.map((line) => line.custom_id)).toEqual(['bad-row']);
    // Finished: rows left the table; the gauge counts unfinished batches only.
    expect(await rowGauge(a)).toEqual({ queued: 0, running: 0, succeeded: 0, errored: 0 });
  }, 60_000);

  it('cancelled on the other instance: rows stop on both, finished rows are kept, the rest are listed as not run', async () => {
    const input = await uploadBatchFile(onA, chatLines(400, 'up-chat', 'slow'));
    const created = await onA.batches.create({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const deadline = Date.now() + 20_000;
    while (((await onB.batches.retrieve(created.id)).request_counts?.completed ?? 0) < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const cancelling = await onB.batches.cancel(created.id);
    expect(['cancelling', 'cancelled']).toContain(cancelling.status);
    const done = await waitForBatch(onA, created.id, undefined, 30_000);
    expect(done.status).toBe('cancelled');
    const completed = done.request_counts!.completed;
    expect(completed).toBeGreaterThanOrEqual(5);
    expect(completed).toBeLessThan(400);
    const output = await lines([onA, onB], done.output_file_id);
    const errors = await lines([onA, onB], done.error_file_id);
    expect(output).toHaveLength(completed);
    expect(errors.every((line) => line.error.code === 'batch_cancelled')).toBe(true);
    const ids = [...output, ...errors].map((line) => line.custom_id);
    expect(new Set(ids).size).toBe(400);
    expect(ids).toHaveLength(400);
    // Cancelling twice is idempotent; a finished batch cannot be cancelled.
    expect((await onA.batches.cancel(created.id)).status).toBe('cancelled');
  }, 60_000);

  it('expires across instances: rows stop on both when the window passes, finished rows kept, the rest listed as expired, once', async () => {
    const input = await uploadBatchFile(onA, chatLines(1000, 'up-chat', 'late'));
    const created = await onA.batches.create({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: '2s' as '24h' }); // igw takes any window up to 7 days; the SDK types only "24h"
    const done = await waitForBatch(onB, created.id, undefined, 30_000);
    expect(done.status).toBe('expired');
    expect(done.expired_at!).toBeGreaterThanOrEqual(done.expires_at!);
    const completed = done.request_counts!.completed;
    expect(completed).toBeLessThan(1000);
    const output = await lines([onA, onB], done.output_file_id);
    const errors = await lines([onA, onB], done.error_file_id);
    expect(output).toHaveLength(completed);
    expect(errors.every((line) => line.error.code === 'batch_expired')).toBe(true);
    const ids = [...output, ...errors].map((line) => line.custom_id);
    expect(ids).toHaveLength(1000);
    expect(new Set(ids).size).toBe(1000);
    await expect(onB.batches.cancel(created.id)).rejects.toMatchObject({ status: 409 });
  }, 60_000);
});
