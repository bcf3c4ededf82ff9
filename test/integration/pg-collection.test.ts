import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeFeed } from '../../src/store/postgres/change-feed.js';
import { migrateDatabase } from '../../src/store/postgres/migrate.js';
import { PostgresCollection } from '../../src/store/postgres/pg-collection.js';
import { openPool } from '../../src/store/postgres/postgres-store.js';
import { RecordFeed } from '../../src/store/postgres/record-feed.js';
import { silentLogger } from '../../src/util/logger.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { eventually } from '../helpers/team.js';

interface Item {
  id: string;
  n: number;
  text?: string;
}

interface Meta {
  dimensions: number | null;
  next_label: number;
}

/** One igw instance's view of the database: its own pool, change feed and record routing. */
interface Instance {
  pool: pg.Pool;
  feed: ChangeFeed;
  records: RecordFeed;
  close(): Promise<void>;
}

async function instance(url: string): Promise<Instance> {
  const pool = openPool(url, silentLogger);
  const feed = new ChangeFeed(url, silentLogger);
  const records = new RecordFeed(feed, silentLogger);
  await feed.start();
  return {
    pool,
    feed,
    records,
    async close() {
      await feed.close();
      await pool.end();
    },
  };
}

const byId = { key: (item: Item) => item.id };
const ids = (collection: PostgresCollection<Item, Meta> | PostgresCollection<Item>) => [...collection.values()].map((item) => item.id);

/** PostgresCollection (issue 19, team mode): the Collection port on one real PostgreSQL, seen from two instances. */
describe('PostgresCollection on one database, two instances', () => {
  let postgres: TestPostgres;
  let url: string;
  let a: Instance;
  let b: Instance;
  let names = 0;
  const fresh = () => `items_${++names}`;

  beforeAll(async () => {
    postgres = await startPostgres();
    url = await postgres.createDatabase();
    await migrateDatabase(url);
    a = await instance(url);
    b = await instance(url);
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await postgres?.stop();
  });

  // Table-driven: each case runs changes on one instance, then checks both caches and a fresh open agree.
  const cases: Array<{ name: string; run: (collection: PostgresCollection<Item>) => Promise<void>; expected: Item[] }> = [
    { name: 'put several in one call, in order', run: (c) => c.put({ id: 'x', n: 1 }, { id: 'y', n: 2 }, { id: 'z', n: 3 }), expected: [{ id: 'x', n: 1 }, { id: 'y', n: 2 }, { id: 'z', n: 3 }] },
    {
      name: 'a change keeps the place',
      run: async (c) => {
        await c.put({ id: 'x', n: 1 }, { id: 'y', n: 2 }, { id: 'z', n: 3 });
        await c.put({ id: 'x', n: 10 });
      },
      expected: [{ id: 'x', n: 10 }, { id: 'y', n: 2 }, { id: 'z', n: 3 }],
    },
    {
      name: 'delete, unknown keys ignored; put again goes last',
      run: async (c) => {
        await c.put({ id: 'x', n: 1 }, { id: 'y', n: 2 }, { id: 'z', n: 3 });
        await c.delete('x', 'nope');
        await c.put({ id: 'x', n: 4 });
      },
      expected: [{ id: 'y', n: 2 }, { id: 'z', n: 3 }, { id: 'x', n: 4 }],
    },
    { name: 'the same key twice in one put: the last wins', run: (c) => c.put({ id: 'x', n: 1 }, { id: 'x', n: 2 }), expected: [{ id: 'x', n: 2 }] },
    {
      name: 'a changed-in-place record put again',
      run: async (c) => {
        const item = { id: 'x', n: 1 };
        await c.put(item);
        item.n = 7;
        await c.put(item);
      },
      expected: [{ id: 'x', n: 7 }],
    },
    {
      name: 'strings JSON must escape (quotes, backslashes, braces, unicode)',
      run: (c) => c.put({ id: 'we"ird\\key{1,2}', n: 1, text: 'a "b" \\c {d} é 🙂 \n' }),
      expected: [{ id: 'we"ird\\key{1,2}', n: 1, text: 'a "b" \\c {d} é 🙂 \n' }],
    },
  ];

  for (const testCase of cases) {
    it(testCase.name, async () => {
      const name = fresh();
      const onA = await PostgresCollection.open<Item>(a.pool, a.records, name, byId);
      const onB = await PostgresCollection.open<Item>(b.pool, b.records, name, byId);
      await testCase.run(onA);
      expect([...onA.values()]).toEqual(testCase.expected);
      expect(onA.size).toBe(testCase.expected.length);
      await eventually(() => JSON.stringify([...onB.values()]) === JSON.stringify(testCase.expected));
      for (const item of testCase.expected) expect(onB.get(item.id)).toEqual(item);
      await onA.close();
      await onB.close();
      const reopened = await PostgresCollection.open<Item>(a.pool, a.records, name, byId);
      expect([...reopened.values()]).toEqual(testCase.expected);
      await reopened.close();
    });
  }

  it('collections are separate: the same key in two collections', async () => {
    const [first, second] = [fresh(), fresh()];
    const one = await PostgresCollection.open<Item>(a.pool, a.records, first, byId);
    const two = await PostgresCollection.open<Item>(a.pool, a.records, second, byId);
    await one.put({ id: 'k', n: 1 });
    await two.put({ id: 'k', n: 2 });
    await one.delete('k');
    expect(two.get('k')).toEqual({ id: 'k', n: 2 });
    await one.close();
    await two.close();
    const again = await PostgresCollection.open<Item>(b.pool, b.records, first, byId);
    expect(again.size).toBe(0);
    await again.close();
  });

  it('one collection opens once per instance', async () => {
    const name = fresh();
    const open = await PostgresCollection.open<Item>(a.pool, a.records, name, byId);
    await expect(PostgresCollection.open<Item>(a.pool, a.records, name, byId)).rejects.toThrow(/already open/);
    await open.close();
    await PostgresCollection.open<Item>(a.pool, a.records, name, byId).then((reopened) => reopened.close());
  });

  it('two instances writing concurrently converge; other instances\' changes reach onRemoteChange, not their own', async () => {
    const name = fresh();
    const onA = await PostgresCollection.open<Item>(a.pool, a.records, name, byId);
    const onB = await PostgresCollection.open<Item>(b.pool, b.records, name, byId);
    const seenByA: Array<[string, number | undefined]> = [];
    onA.onRemoteChange((key, record) => seenByA.push([key, record?.n]));
    const writes: Array<Promise<void>> = [];
    for (let round = 0; round < 50; round += 1) {
      writes.push(onA.put({ id: `k${round % 7}`, n: round }));
      writes.push(onB.put({ id: `k${(round + 3) % 7}`, n: 1000 + round }));
      if (round % 5 === 4) writes.push(onB.delete(`k${round % 7}`));
    }
    await Promise.all(writes);
    const truth = async () => {
      const { rows } = await a.pool.query<{ key: string; value: Item }>('SELECT key, value FROM igw_records WHERE collection = $1', [name]);
      return new Map(rows.map((row) => [row.key, row.value]));
    };
    const matches = async (collection: PostgresCollection<Item>) => {
      const database = await truth();
      return collection.size === database.size && [...database].every(([key, value]) => JSON.stringify(collection.get(key)) === JSON.stringify(value));
    };
    await eventually(async () => (await matches(onA)) && (await matches(onB)), 5000);
    expect(seenByA.length).toBeGreaterThan(0);
    expect(seenByA.every(([, n]) => n === undefined || n >= 1000)).toBe(true);
    await onA.close();
    await onB.close();
  });

  it('quick puts of one key, not awaited one by one: the last one is what the database and the other instance keep', async () => {
    const name = fresh();
    const onA = await PostgresCollection.open<Item>(a.pool, a.records, name, byId);
    const onB = await PostgresCollection.open<Item>(b.pool, b.records, name, byId);
    await Promise.all(Array.from({ length: 30 }, (_, n) => onA.put({ id: 'k', n })));
    const { rows } = await a.pool.query<{ value: Item }>('SELECT value FROM igw_records WHERE collection = $1', [name]);
    expect(rows.map((row) => row.value.n)).toEqual([29]);
    await eventually(() => onB.get('k')?.n === 29);
    await onA.close();
    await onB.close();
  });

  it('a remote change arrives within milliseconds', async () => {
    const name = fresh();
    const onA = await PostgresCollection.open<Item>(a.pool, a.records, name, byId);
    const onB = await PostgresCollection.open<Item>(b.pool, b.records, name, byId);
    const remote: Array<[string, Item | undefined]> = [];
    onB.onRemoteChange((key, record) => remote.push([key, record]));
    await onA.put({ id: 'x', n: 1 });
    const elapsed = await eventually(() => onB.get('x')?.n === 1);
    expect(elapsed).toBeLessThan(1000);
    await onA.delete('x');
    await eventually(() => !onB.has('x'));
    expect(remote).toEqual([
      ['x', { id: 'x', n: 1 }],
      ['x', undefined],
    ]);
    await onA.close();
    await onB.close();
  });

  it('big values (well past the 8000-byte NOTIFY payload limit) travel intact', async () => {
    const name = fresh();
    const onA = await PostgresCollection.open<Item>(a.pool, a.records, name, byId);
    const onB = await PostgresCollection.open<Item>(b.pool, b.records, name, byId);
    const big = { id: 'big', n: 1, text: 'x'.repeat(5_000_000) + 'é' };
    await onA.put(big, { id: 'small', n: 2 });
    await eventually(() => onB.get('big')?.text?.length === big.text.length, 5000);
    expect(onB.get('big')).toEqual(big);
    expect(ids(onB)).toEqual(['big', 'small']);
    await onA.close();
    await onB.close();
  });

  it('meta merges field by field and reaches the other instance', async () => {
    const name = fresh();
    const options = { ...byId, meta: { dimensions: null, next_label: 0 } as Meta };
    const onA = await PostgresCollection.open<Item, Meta>(a.pool, a.records, name, options);
    const onB = await PostgresCollection.open<Item, Meta>(b.pool, b.records, name, options);
    expect(onB.meta).toEqual({ dimensions: null, next_label: 0 });
    await onA.setMeta({ next_label: 5 });
    await onB.setMeta({ dimensions: 384 });
    await eventually(() => onA.meta.dimensions === 384 && onB.meta.next_label === 5);
    expect(onA.meta).toEqual({ dimensions: 384, next_label: 5 });
    await onA.close();
    await onB.close();
    const reopened = await PostgresCollection.open<Item, Meta>(b.pool, b.records, name, options);
    expect(reopened.meta).toEqual({ dimensions: 384, next_label: 5 });
    await reopened.close();
  });

  it('after the change feed is cut, changes made meanwhile arrive once it reconnects (reload)', async () => {
    const name = fresh();
    const onA = await PostgresCollection.open<Item>(a.pool, a.records, name, byId);
    const onB = await PostgresCollection.open<Item>(b.pool, b.records, name, byId);
    await onA.put({ id: 'kept', n: 1 }, { id: 'changed', n: 1 }, { id: 'gone', n: 1 });
    await eventually(() => onB.size === 3);
    const remote: string[] = [];
    onB.onRemoteChange((key, record) => remote.push(`${key}:${record?.n ?? 'deleted'}`));
    const kept = onB.get('kept');
    // Cut every LISTEN connection (B's feed among them) and change things before they come back.
    const listening = "FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()";
    await a.pool.query(`SELECT pg_terminate_backend(pid) ${listening}`);
    await eventually(async () => (await a.pool.query(`SELECT count(*)::int AS n ${listening}`)).rows[0].n === 0);
    await onA.put({ id: 'changed', n: 2 }, { id: 'new', n: 1 });
    await onA.delete('gone');
    await eventually(() => onB.get('changed')?.n === 2 && onB.has('new') && !onB.has('gone'), 10_000);
    expect(ids(onB).sort()).toEqual(['changed', 'kept', 'new']);
    // Unchanged records keep their object (callers may hold it).
    expect(onB.get('kept')).toBe(kept);
    expect(remote.sort()).toEqual(['changed:2', 'gone:deleted', 'new:1']);
    await onA.close();
    await onB.close();
  }, 20_000);

  it('a closed collection refuses changes', async () => {
    const collection = await PostgresCollection.open<Item>(a.pool, a.records, fresh(), byId);
    await collection.close();
    await expect(collection.put({ id: 'x', n: 1 })).rejects.toThrow(/closed/);
    await expect(collection.delete('x')).rejects.toThrow(/closed/);
  });
});
