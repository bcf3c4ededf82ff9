import type pg from 'pg';

/**
 * A record into a PostgresCollection's table (pg-collection.ts), unless its key is there already:
 * `igw migrate --from-data-dir` keeps what the database holds (copy-vector-stores.ts, copy-files.ts,
 * copy-vault.ts). Returns whether it was inserted.
 */
export async function insertRecord(client: pg.ClientBase, collection: string, key: string, record: object): Promise<boolean> {
  const inserted = await client.query('INSERT INTO igw_records (collection, key, value) VALUES ($1, $2, $3::json) ON CONFLICT DO NOTHING', [collection, key, JSON.stringify(record)]);
  return inserted.rowCount === 1;
}
