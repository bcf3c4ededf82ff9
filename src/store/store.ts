import path from 'node:path';
import { toDecimal } from '../billing/money.js';
import { AccountRepository, type AccountRecord, type JournalEntry } from './accounts.js';
import { ensureDataDir } from './db.js';
import { KeyRepository } from './keys.js';
import { RequestLog } from './request-log.js';
import { Vault } from '../vault/vault.js';
import type { StoreConfig } from '../config/schema.js';
import { createJsonLogger, type Logger } from '../util/logger.js';
import type { PostgresStore } from './postgres/postgres-store.js';
import type { CollectionOpener } from './postgres/pg-collection.js';
import type { AccountRepositoryPort, KeyRepositoryPort, RequestLogPort } from './repositories.js';

/** Everything igw keeps, under one data dir (DESIGN §4). */
export interface Store {
  /** `json`: everything in the data dir; `postgres`: keys, accounts and the request log shared (team mode). */
  kind: StoreConfig['kind'];
  dataDir: string;
  keys: KeyRepositoryPort;
  accounts: AccountRepositoryPort;
  requestLog: RequestLogPort;
  /** Team mode: feature repositories' records shared through PostgreSQL; absent with the json store. */
  collections?: CollectionOpener;
  /** Encrypted blueprints and skills per account (opened lazily, per account). */
  vault: Vault;
  logFolder: string;
  close(): Promise<void>;
}

function applyJournalEntry(record: AccountRecord, entry: JournalEntry): void {
  const current = record[entry.balance];
  if (current === 'unlimited') return;
  record[entry.balance] = toDecimal(current).minus(toDecimal(entry.amount)).toFixed();
}

/**
 * The store the config names (DESIGN §4): the data dir by default, PostgreSQL in team mode. With
 * `dataKey` (igw serve) a team store first checks it is the team's (postgres/team-data-key.ts).
 */
export async function openStore(dataDir: string, config: StoreConfig = { kind: 'json' }, logger?: Logger, dataKey?: Buffer): Promise<Store | PostgresStore> {
  if (config.kind === 'postgres') {
    // Loaded on demand: node-postgres is team mode's alone (app/team-parts.ts says why).
    const { openPostgresStore } = await import('./postgres/postgres-store.js');
    return openPostgresStore(dataDir, config.url, logger ?? createJsonLogger(), dataKey);
  }
  await ensureDataDir(dataDir, 'logs');
  const logFolder = path.join(dataDir, 'logs');
  const keys = await KeyRepository.open(dataDir);
  const accounts = await AccountRepository.open(dataDir, applyJournalEntry);
  const requestLog = new RequestLog(logFolder);
  return {
    kind: 'json',
    dataDir,
    keys,
    accounts,
    requestLog,
    vault: new Vault(dataDir),
    logFolder,
    async close() {
      await requestLog.close();
      await accounts.flush();
    },
  };
}
