import path from 'node:path';
import { toDecimal } from '../billing/money.js';
import { AccountRepository, type AccountRecord, type JournalEntry } from './accounts.js';
import { ensureDataDir } from './db.js';
import { KeyRepository } from './keys.js';
import { RequestLog } from './request-log.js';
import { Vault } from '../vault/vault.js';

/** Everything igw keeps, under one data dir (DESIGN §4). */
export interface Store {
  dataDir: string;
  keys: KeyRepository;
  accounts: AccountRepository;
  requestLog: RequestLog;
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

export async function openStore(dataDir: string): Promise<Store> {
  await ensureDataDir(dataDir, 'logs');
  const logFolder = path.join(dataDir, 'logs');
  const keys = await KeyRepository.open(dataDir);
  const accounts = await AccountRepository.open(dataDir, applyJournalEntry);
  const requestLog = new RequestLog(logFolder);
  return {
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
