import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startChatUpstream } from '../helpers/batch-cli.js';
import { chatLines, uploadBatchFile, waitForBatch } from '../helpers/batches.js';
import { cleanupAll, igwJson, startServer, type Sandbox } from '../helpers/cli.js';
import type { FakeUpstream } from '../helpers/fake-upstream.js';
import { upstreamConfig } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { teamSandbox } from '../helpers/team-sandbox.js';

/** Every instance of the team runs with this data key (rows and output lines are sealed under it). */
const DATA_KEY = 'team-batch-cli-data-key-long-enough-to-stretch';

/** Team mode with real processes (issue 19 item 2): two `igw serve` on one database, one killed mid-batch. */
describe('team mode: igw serve ×2, SIGKILL one mid-batch', () => {
  let postgres: TestPostgres;
  let upstream: FakeUpstream;

  beforeAll(async () => {
    postgres = await startPostgres();
    upstream = await startChatUpstream(150);
  }, 60_000);
  afterEach(() => cleanupAll());
  afterAll(async () => {
    await upstream?.close();
    await postgres?.stop();
  });

  const instance = (databaseUrl: string): Promise<Sandbox> => teamSandbox(databaseUrl, { ...upstreamConfig(upstream.url), batches: { concurrency: 4, max_requests_per_file: 50_000, lease_seconds: 2 } }, DATA_KEY);

  it('the other instance finishes the batch after the lease expires: every row in the output exactly once, none lost', async () => {
    const databaseUrl = await postgres.createDatabase();
    const [sandboxA, sandboxB] = [await instance(databaseUrl), await instance(databaseUrl)];
    const a = await startServer(sandboxA);
    const b = await startServer(sandboxB);
    // A key made with the team config is in PostgreSQL: valid on both instances.
    const key = (await igwJson<{ key: string }>(sandboxA, ['keys', 'create', '--json'])).key;
    const onA = new OpenAI({ apiKey: key, baseURL: `${a.url}/v1`, maxRetries: 0 });
    const onB = new OpenAI({ apiKey: key, baseURL: `${b.url}/v1`, maxRetries: 0 });

    const rows = 80;
    const input = await uploadBatchFile(onA, chatLines(rows, 'up-chat'));
    const batch = await onA.batches.create({ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: '24h' });

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      // Kill A while it holds leases on rows it has not finished.
      const deadline = Date.now() + 20_000;
      let heldByA = 0;
      while (Date.now() < deadline) {
        const { rows: held } = await db.query<{ count: string }>(`SELECT count(*) FROM igw_batch_rows WHERE NOT done AND lease_owner LIKE $1`, [`%:${a.pid}:%`]);
        const { rows: finished } = await db.query<{ count: string }>(`SELECT count(*) FROM igw_batch_rows WHERE done`);
        heldByA = Number(held[0]!.count);
        if (heldByA > 0 && Number(finished[0]!.count) >= 10) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const killedAt = Date.now();
      await a.stop('SIGKILL');
      expect(heldByA).toBeGreaterThan(0);

      const done = await waitForBatch(onB, batch.id, undefined, 40_000);
      expect(done.status).toBe('succeeded');
      expect(done.request_counts).toMatchObject({ total: rows, completed: rows, failed: 0 });
      // A's rows came back only once their 2 s lease ran out.
      expect(Date.now() - killedAt).toBeGreaterThanOrEqual(1500);

      const text = await (await onB.files.content(done.output_file_id!)).text();
      const ids = text.split('\n').filter((line) => line !== '').map((line) => (JSON.parse(line) as { custom_id: string }).custom_id);
      expect(ids).toEqual(Array.from({ length: rows }, (_, index) => `row-${index}`));
      // Every row reached the upstream; only rows in flight on A at the kill may have run twice.
      const calls = new Map<string, number>();
      for (const request of upstream.requests) {
        const content = String(request.body?.messages?.at(-1)?.content);
        calls.set(content, (calls.get(content) ?? 0) + 1);
      }
      expect(calls.size).toBe(rows);
      expect([...calls.values()].filter((count) => count > 1).length).toBeLessThanOrEqual(4);
    } finally {
      await db.end();
      await b.stop();
    }
  }, 90_000);
});
