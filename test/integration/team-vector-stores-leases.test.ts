import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, igwJson, startServer, type Sandbox } from '../helpers/cli.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, upstreamConfig } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { teamSandbox } from '../helpers/team-sandbox.js';
import { eventually } from '../helpers/team.js';

/** Every instance of the team seals and opens with this data key. */
const DATA_KEY = 'team-ingestion-data-key-long-enough-to-stretch';
const LEASE_MS = 1500;
const FILES = 6;

/**
 * Team mode with real processes (issue 19 item 2): ingestion jobs are claimed with leases. An
 * `igw serve` SIGKILLed while it holds them loses nothing: another instance takes the jobs once
 * the leases run out, and every file goes in_progress → completed once.
 */
describe('team mode: ingestion jobs survive an instance SIGKILLed mid-ingestion', () => {
  let postgres: TestPostgres;
  let upstream: FakeUpstream;
  /** Embedding calls wait until this is true (A is killed while they wait). */
  let answering = false;

  beforeAll(async () => {
    postgres = await startPostgres();
    upstream = await startFakeUpstream(async (request) => {
      while (!answering) await new Promise((resolve) => setTimeout(resolve, 20));
      const inputs = ([] as string[]).concat(request.body.input);
      return {
        json: {
          object: 'list',
          model: 'real-embed-1',
          data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: [1, text.length % 7, index + 1] })),
          usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
        },
      };
    });
  }, 60_000);
  afterEach(() => cleanupAll());
  afterAll(async () => {
    await upstream?.close();
    await postgres?.stop();
  });

  const instance = (databaseUrl: string): Promise<Sandbox> => teamSandbox(databaseUrl, { ...upstreamConfig(upstream.url), vector_stores: { embedding_model: 'up-embed', ingest_lease_ms: LEASE_MS } }, DATA_KEY);

  it('the other instance completes the files after the leases expire; each file is committed once', async () => {
    const databaseUrl = await postgres.createDatabase();
    const [sandboxA, sandboxB] = [await instance(databaseUrl), await instance(databaseUrl)];
    const a = await startServer(sandboxA);
    const key = (await igwJson<{ key: string }>(sandboxA, ['keys', 'create', '--vault', '--json'])).key;
    const store = await new OpenAI({ apiKey: key, baseURL: `${a.url}/v1`, maxRetries: 0 }).vectorStores.create({ name: 'handover' });
    for (let index = 0; index < FILES; index += 1) {
      const added = await postJson(`${a.url}/v1/vector_stores/${store.id}/sources/text`, key, { name: `doc-${index}.txt`, text: `Document ${index} about handing work over between instances.` });
      expect(added.status).toBe(200);
    }
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      // A holds a lease on every job and waits in its embedding calls.
      await eventually(async () => {
        const { rows } = await db.query<{ leased: string }>('SELECT count(*) AS leased FROM igw_vs_jobs WHERE lease_until > clock_timestamp()');
        return Number(rows[0]!.leased) === FILES && upstream.requests.length >= FILES;
      }, 20_000);
      const killedAt = Date.now();
      await a.stop('SIGKILL');
      answering = true;

      const b = await startServer(sandboxB);
      const onB = new OpenAI({ apiKey: key, baseURL: `${b.url}/v1`, maxRetries: 0 });
      await eventually(async () => (await onB.vectorStores.retrieve(store.id)).file_counts.completed === FILES, 30_000);
      // A's jobs came back only once their leases ran out.
      expect(Date.now() - killedAt).toBeGreaterThanOrEqual(LEASE_MS - 200);
      expect((await onB.vectorStores.retrieve(store.id)).file_counts).toMatchObject({ in_progress: 0, completed: FILES, failed: 0, cancelled: 0, total: FILES });
      // One committed change per file (a file committed twice would have taken two sequence numbers), no job left.
      const { rows: feed } = await db.query<{ seq: string }>('SELECT seq FROM igw_vs_feed WHERE store_id = $1', [store.id]);
      expect(Number(feed[0]!.seq)).toBe(FILES);
      // A job row goes once its file's status is final (finish follows the status write), so it may trail the count by a moment.
      await eventually(async () => (await db.query('SELECT 1 FROM igw_vs_jobs')).rowCount === 0, 10_000);
      const hits = (await onB.vectorStores.search(store.id, { query: 'Document 3 about handing work over' })).data;
      expect(hits.length).toBeGreaterThan(0);
      await b.stop();
    } finally {
      await db.end();
    }
  }, 90_000);
});
