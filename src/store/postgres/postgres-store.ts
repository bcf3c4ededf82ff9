import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../../util/logger.js';
import { ensureDataDir } from '../db.js';
import type { AccountRepositoryPort, KeyRepositoryPort, RequestLogPort } from '../repositories.js';
import { Vault } from '../../vault/vault.js';
import { PostgresAccountRepository } from './account-repository.js';
import { ChangeFeed } from './change-feed.js';
import { PostgresKeyRepository } from './key-repository.js';
import { migrateDatabase } from './migrate.js';
import { collectionOpener, PostgresCollection, type CollectionOpener } from './pg-collection.js';
import { teamVaultFiles, type VaultRecord } from '../../vault/team-vault-files.js';
import { RecordFeed } from './record-feed.js';
import { checkTeamDataKey } from './team-data-key.js';
import { PostgresRequestLog } from './request-log.js';

/** A pool whose idle-client errors (a restarted server) are logged, not thrown (node-postgres would crash the process). */
export function openPool(url: string, logger: Logger): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', (error) => logger.warn('team store: a PostgreSQL connection failed', { error: String(error) }));
  return pool;
}

/** The team-mode half of `Store` (store.ts), declared here so store.ts can import this module without a cycle. */
export interface PostgresStore {
  kind: 'postgres';
  dataDir: string;
  /** The instance's connection pool (features with their own tables, e.g. vector stores, use it too). */
  pool: pg.Pool;
  keys: KeyRepositoryPort;
  accounts: AccountRepositoryPort;
  requestLog: RequestLogPort;
  /** Feature repositories' records shared through PostgreSQL (PostgresCollection). */
  collections: CollectionOpener;
  vault: Vault;
  logFolder: string;
  close(): Promise<void>;
}

/**
 * The team-mode store (DESIGN §4): keys, accounts and balances and the request log in
 * PostgreSQL, shared by every instance on the database; the vault and the log folder stay in this
 * instance's data dir. Pending migrations run first, under the migration lock.
 */
export async function openPostgresStore(dataDir: string, url: string, logger: Logger, dataKey?: Buffer): Promise<PostgresStore> {
  await ensureDataDir(dataDir, 'logs');
  await migrateDatabase(url);
  const pool = openPool(url, logger);
  const feed = new ChangeFeed(url, logger);
  try {
    // The gateway passes its data key: a key other than the team's is refused before anything starts.
    if (dataKey !== undefined) await checkTeamDataKey(pool, dataKey);
    const keys = await PostgresKeyRepository.open(pool, feed);
    const accounts = await PostgresAccountRepository.open(pool, feed);
    const records = new RecordFeed(feed, logger);
    // Listen before loading: a change committed while the caches load is not missed.
    await feed.start();
    await keys.load();
    await accounts.load();
    // Each account's vault is a record of the shared collection: every instance reads it.
    const vaultRecords = await PostgresCollection.open<VaultRecord>(pool, records, 'vault', { key: (record) => record.account });
    const requestLog = new PostgresRequestLog(pool, (error) => logger.error('request log write failed', { error: String(error) }));
    return {
      kind: 'postgres',
      dataDir,
      pool,
      keys,
      accounts,
      requestLog,
      collections: collectionOpener(pool, records),
      vault: new Vault(dataDir, undefined, teamVaultFiles(vaultRecords)),
      logFolder: path.join(dataDir, 'logs'),
      async close() {
        await requestLog.close();
        await accounts.flush();
        await vaultRecords.close();
        await feed.close();
        await pool.end();
      },
    };
  } catch (error) {
    await feed.close();
    await pool.end();
    throw error;
  }
}
