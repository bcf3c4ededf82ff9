import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { TestGateway } from './gateway.js';

async function query<R extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** A stored file's sealed bytes where this gateway keeps them: its data dir, or PostgreSQL in team mode. */
export async function storedFileBytes(gw: TestGateway, id: string): Promise<Buffer> {
  const store = gw.config.store;
  if (store.kind !== 'postgres') return readFile(path.join(gw.dataDir, 'files', id));
  const rows = await query<{ bytes: Buffer }>(store.url, 'SELECT bytes FROM igw_file_parts WHERE file_id = $1 ORDER BY part', [id]);
  return Buffer.concat(rows.map((row) => row.bytes));
}

/** The ids of every file whose bytes this gateway stores. */
export async function storedFileIds(gw: TestGateway): Promise<string[]> {
  const store = gw.config.store;
  if (store.kind !== 'postgres') return readdir(path.join(gw.dataDir, 'files'));
  return (await query<{ file_id: string }>(store.url, 'SELECT DISTINCT file_id FROM igw_file_parts')).map((row) => row.file_id);
}

/** Each account's vault document as stored (text): the data dir's vault files, or the team's rows. */
export async function storedVaultTexts(gw: TestGateway): Promise<string[]> {
  const store = gw.config.store;
  if (store.kind === 'postgres') return (await query<{ value: string }>(store.url, "SELECT value::text AS value FROM igw_records WHERE collection = 'vault'")).map((row) => row.value);
  const folder = path.join(gw.dataDir, 'vault');
  return Promise.all((await readdir(folder)).map((name) => readFile(path.join(folder, name), 'utf8')));
}
