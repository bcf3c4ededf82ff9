import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { eventually, startTeam } from '../helpers/team.js';

/** Every instance of a team must seal and open with the same data key. */
const TEAM_DATA_KEY = '7e'.repeat(32);

const DOCS = [
  ['returns.md', 'Our return policy: items can be returned within 30 days of delivery for a full refund.'],
  ['shipping.md', 'Shipping takes three to five business days; express delivery arrives the next day.'],
  ['chess.md', 'A chess puzzle: white to move and mate in two, starting with the queen sacrifice.'],
] as const;

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/**
 * Team mode, vector stores (issue 19 items 1–2): two gateways on one real PostgreSQL. Stores,
 * files and chunks live in the database; each instance's search indexes are caches fed by the
 * change feed, so a file attached on one is found by a search on the other within seconds.
 */
describe('team mode: vector stores on one PostgreSQL', () => {
  let postgres: TestPostgres;
  let databaseUrl: string;
  let a: TestGateway;
  let b: TestGateway;
  let keyA: string;
  const previousKey = process.env['IGW_DATA_KEY'];

  beforeAll(async () => {
    process.env['IGW_DATA_KEY'] = TEAM_DATA_KEY;
    postgres = await startPostgres();
    const team = await startTeam(postgres, {});
    databaseUrl = team.url;
    [a, b] = team.gateways as [TestGateway, TestGateway];
    keyA = await a.newKey({ name: 'kb', vault: true });
    await eventually(() => b.gateway.app.store.keys.list().some((record) => record.name === 'kb'));
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await postgres?.stop();
    if (previousKey === undefined) delete process.env['IGW_DATA_KEY'];
    else process.env['IGW_DATA_KEY'] = previousKey;
  });

  async function addText(gateway: TestGateway, storeId: string, name: string, text: string): Promise<string> {
    const response = await postJson(`${gateway.url}/v1/vector_stores/${storeId}/sources/text`, keyA, { name, text });
    expect(response.status).toBe(200);
    return response.json.id as string;
  }

  it('a store created on A is listed, retrieved, updated and deleted on B (official client)', async () => {
    const onA = a.openai(keyA);
    const onB = b.openai(keyA);
    const created = await onA.vectorStores.create({ name: 'team-docs', metadata: { team: 'a' } });
    await eventually(async () => (await onB.vectorStores.list()).data.some((store) => store.id === created.id), 2000);
    expect(await onB.vectorStores.retrieve(created.id)).toMatchObject({ id: created.id, name: 'team-docs', metadata: { team: 'a' } });
    await onB.vectorStores.update(created.id, { name: 'renamed-on-b' });
    await eventually(async () => (await onA.vectorStores.retrieve(created.id)).name === 'renamed-on-b', 2000);
    expect(await onB.vectorStores.delete(created.id)).toMatchObject({ id: created.id, deleted: true });
    await eventually(async () => {
      try {
        await onA.vectorStores.retrieve(created.id);
        return false;
      } catch (error) {
        return (error as { status?: number }).status === 404;
      }
    }, 2000);
  });

  it('a file attached on A is found by a search on B within 5 s; detached on A, it is gone on B; file_counts agree', async () => {
    const onA = a.openai(keyA);
    const onB = b.openai(keyA);
    const store = await onA.vectorStores.create({ name: 'team-kb' });
    const ids: string[] = [];
    for (const [name, text] of DOCS) ids.push(await addText(a, store.id, name, text));
    const attached = Date.now();
    const found = async () => (await onB.vectorStores.search(store.id, { query: 'mate in two chess puzzle' })).data.some((hit) => hit.filename === 'chess.md');
    await eventually(found, 5000);
    expect(Date.now() - attached).toBeLessThan(5000);
    for (const client of [onA, onB]) {
      await eventually(async () => (await client.vectorStores.retrieve(store.id)).file_counts.completed === 3, 2000);
      expect((await client.vectorStores.retrieve(store.id)).file_counts).toMatchObject({ completed: 3, in_progress: 0, failed: 0, total: 3 });
    }
    await onA.vectorStores.files.delete(ids[2]!, { vector_store_id: store.id });
    await eventually(async () => !(await found()), 5000);
    await eventually(async () => (await onB.vectorStores.retrieve(store.id)).file_counts.total === 2, 2000);
    // The other files are still found on both.
    for (const client of [onA, onB]) {
      const hits = (await client.vectorStores.search(store.id, { query: 'return policy refund' })).data;
      expect(hits[0]?.filename).toBe('returns.md');
    }
  });

  it('change propagation: attach-committed on one instance to searchable on both, over 50 files', async () => {
    const store = await a.openai(keyA).vectorStores.create({ name: 'latency' });
    // The feed as a third listener sees each commit the moment it is announced.
    const listener = new pg.Client({ connectionString: databaseUrl });
    await listener.connect();
    const committedAt = new Map<number, number>();
    listener.on('notification', (message) => {
      const notice = JSON.parse(message.payload!) as { store_id: string; seq: number | null };
      if (notice.store_id === store.id && notice.seq !== null) committedAt.set(notice.seq, performance.now());
    });
    await listener.query('LISTEN igw_vs_changes');
    const dataA = await a.gateway.app.vectorStores.data(store.id);
    const dataB = await b.gateway.app.vectorStores.data(store.id);
    const lags: number[] = [];
    try {
      for (let index = 0; index < 50; index += 1) {
        const fileId = await addText(index % 2 === 0 ? a : b, store.id, `note-${index}.txt`, `Team note number ${index}: the quarterly figures for region ${index}.`);
        await eventually(() => committedAt.has(index + 1), 5000);
        await eventually(() => dataA.hasFile(fileId) && dataB.hasFile(fileId), 5000);
        lags.push(performance.now() - committedAt.get(index + 1)!);
      }
    } finally {
      await listener.end();
    }
    lags.sort((left, right) => left - right);
    const median = percentile(lags, 0.5);
    const p99 = percentile(lags, 0.99);
    console.log(`team vector stores: commit → searchable on both instances over ${lags.length} files: median ${median.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
    expect(p99).toBeLessThan(5000);
    // The status is saved right after the commit: both instances count every file completed.
    for (const client of [a.openai(keyA), b.openai(keyA)]) await eventually(async () => (await client.vectorStores.retrieve(store.id)).file_counts.completed === 50, 2000);
  }, 120_000);
});
