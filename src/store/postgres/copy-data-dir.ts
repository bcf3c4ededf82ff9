import { realpath } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { acquireLock } from '../lock.js';
import { readRequestLog } from '../request-log.js';
import { openStore } from '../store.js';
import { balanceValue } from './account-repository.js';
import { copyBatches, type BatchesCopy } from './copy-batches.js';
import { copyFiles, type FilesCopy } from './copy-files.js';
import { copyVault, type VaultCopy } from './copy-vault.js';
import { copyVectorStores, type VectorStoresCopy } from './copy-vector-stores.js';
import { KEY_COLUMNS, keyValues } from './key-repository.js';
import { insertRequestLines } from './request-log.js';
import { checkTeamDataKey } from './team-data-key.js';

export interface DataDirCopy {
  data_dir: string;
  /** Rows written now. */
  copied: { keys: number; accounts: number; request_log_lines: number } & FilesCopy['copied'] & VaultCopy['copied'] & BatchesCopy['copied'] & VectorStoresCopy['copied'];
  /** Rows already in the database (same key, account or batch id; a request log copied before from this data dir). */
  skipped: { keys: number; accounts: number; request_log_lines: number } & FilesCopy['skipped'] & VaultCopy['skipped'] & BatchesCopy['skipped'] & VectorStoresCopy['skipped'];
  /** Parts kept in the data dir: none, every part is copied (the field stays in `--json` for scripts that read it). */
  not_copied: readonly string[];
}

const LOG_BATCH = 1000;

/**
 * `igw migrate --from-data-dir DIR` (issue 19 item 3): copies a local data dir's keys (hashes as
 * they are: the keys themselves were never stored), accounts with their balances (pending journal
 * entries folded in), request log, files (copy-files.ts), vaults (copy-vault.ts), batches
 * (copy-batches.ts) and vector stores (copy-vector-stores.ts) into PostgreSQL, in one transaction.
 * What is sealed under a data key is opened with `keys.source` (the data dir's) and sealed again
 * under `keys.team` (the team's IGW_DATA_KEY), which must open the database's check value when it
 * has one (team-data-key.ts). Records already there are kept, not overwritten; a data dir's
 * request log is copied once. Holds the data dir's lock, so no server is writing to it meanwhile.
 */
export async function copyDataDir(dataDir: string, url: string, keys: { source: Buffer; team: Buffer }): Promise<DataDirCopy> {
  const lock = await acquireLock(dataDir, 'igw migrate --from-data-dir');
  try {
    const source = await openStore(dataDir);
    const records = source.keys.list();
    const accounts = source.accounts.list();
    await source.close();
    const lines = await readRequestLog(path.join(dataDir, 'logs'), 0);
    const origin = await realpath(dataDir);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('BEGIN');
      // Before anything is sealed under it: the team key must be the one the instances use.
      await checkTeamDataKey(client, keys.team);
      let copiedKeys = 0;
      const placeholders = KEY_COLUMNS.map((_, index) => `$${index + 1}`).join(', ');
      for (const record of records) {
        const result = await client.query(`INSERT INTO igw_keys (${KEY_COLUMNS.join(', ')}) VALUES (${placeholders}) ON CONFLICT DO NOTHING`, keyValues(record));
        copiedKeys += result.rowCount ?? 0;
      }
      let copiedAccounts = 0;
      for (const record of accounts) {
        const result = await client.query('INSERT INTO igw_accounts (id, plan, energy, credits, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING', [
          record.id,
          record.plan,
          balanceValue(record.energy),
          balanceValue(record.credits),
          record.created_at,
        ]);
        copiedAccounts += result.rowCount ?? 0;
      }
      const first = await client.query("INSERT INTO igw_imports (data_dir, part) VALUES ($1, 'request_log') ON CONFLICT DO NOTHING", [origin]);
      let copiedLines = 0;
      if (first.rowCount === 1) {
        for (let start = 0; start < lines.length; start += LOG_BATCH) copiedLines += await insertRequestLines(client, lines.slice(start, start + LOG_BATCH));
      }
      const files = await copyFiles(client, dataDir, keys);
      const vault = await copyVault(client, dataDir);
      const batches = await copyBatches(client, dataDir, keys);
      const vectorStores = await copyVectorStores(client, dataDir, keys);
      await client.query('COMMIT');
      return {
        data_dir: origin,
        copied: { keys: copiedKeys, accounts: copiedAccounts, request_log_lines: copiedLines, ...files.copied, ...vault.copied, ...batches.copied, ...vectorStores.copied },
        skipped: { keys: records.length - copiedKeys, accounts: accounts.length - copiedAccounts, request_log_lines: lines.length - copiedLines, ...files.skipped, ...vault.skipped, ...batches.skipped, ...vectorStores.skipped },
        not_copied: [],
      };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await client.end();
    }
  } finally {
    await lock.release();
  }
}
