import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { startTestGateway } from '../helpers/gateway.js';
import { MATRIX_STORE } from '../helpers/store-matrix.js';

async function databaseExists(adminUrl: string, name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

/** The test matrix itself (vitest.config.ts): each project really runs on the store it names. */
describe('test matrix: startTestGateway runs on the project’s store', () => {
  it.runIf(MATRIX_STORE === 'json')('json project: the data dir holds the store, no database is named', async () => {
    const igw = await startTestGateway();
    try {
      expect(igw.gateway.app.store.kind).toBe('json');
      expect(igw.config.store).toEqual({ kind: 'json' });
    } finally {
      await igw.close();
    }
  });

  it.runIf(MATRIX_STORE === 'postgres')('postgres project: a database of its own per gateway, migrated, written through the store, dropped at close', async () => {
    const first = await startTestGateway();
    const second = await startTestGateway();
    const adminUrl = inject('matrixPostgresAdminUrl');
    const names: string[] = [];
    try {
      for (const igw of [first, second]) {
        expect(igw.gateway.app.store.kind).toBe('postgres');
        expect(igw.config.store.kind).toBe('postgres');
        names.push(new URL((igw.config.store as { url: string }).url).pathname.slice(1));
      }
      expect(names[0]).not.toBe(names[1]);
      // The key each helper made is a row of its own database only.
      const client = new pg.Client({ connectionString: (first.config.store as { url: string }).url });
      await client.connect();
      const { rows } = await client.query<{ name: string }>('SELECT name FROM igw_keys');
      await client.end();
      expect(rows.map((row) => row.name)).toEqual(['test']);
      expect(await databaseExists(adminUrl, names[0]!)).toBe(true);
    } finally {
      await first.close();
      await second.close();
    }
    for (const name of names) expect(await databaseExists(adminUrl, name)).toBe(false);
  });
});
