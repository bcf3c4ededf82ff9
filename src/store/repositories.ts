import type { AccountRecord } from './accounts.js';
import type { KeyRecord } from './keys.js';
import type { RequestLogEntry } from './request-log.js';

/**
 * What the gateway needs from keys, accounts and the request log, whatever holds them: the data
 * dir (JSON, the default) or PostgreSQL (team mode, DESIGN §4). Lookups are synchronous on both:
 * they are on the hot path of every request, so each store answers them from memory.
 */
export interface KeyRepositoryPort {
  findByHash(hash: string): KeyRecord | undefined;
  get(id: string): KeyRecord | undefined;
  list(): KeyRecord[];
  insert(record: KeyRecord): Promise<void>;
  update(id: string, change: Partial<KeyRecord>): Promise<KeyRecord | undefined>;
}

export interface AccountRepositoryPort {
  get(id: string): AccountRecord | undefined;
  list(): AccountRecord[];
  insert(record: AccountRecord): Promise<void>;
  update(id: string, change: Partial<AccountRecord>): Promise<AccountRecord | undefined>;
  /** Debits `amount` (decimal string; negative credits) from one balance; visible to the next preflight at once, durable when it resolves. */
  debit(account: string, balance: 'energy' | 'credits', amount: string): Promise<void>;
  /** Waits until every debit so far is durable. */
  flush(): Promise<void>;
}

/** The request log: append never waits (off the hot path); flush and close wait for the writes. */
export interface RequestLogPort {
  append(entry: RequestLogEntry): void;
  flush(): Promise<void>;
  close(): Promise<void>;
  /**
   * Every line at or after `since` (ms), this instance's own buffered lines written first; in team
   * mode every instance's lines (one table, DESIGN §4). For the dashboard's "today" and for tests,
   * which read the log through the store whatever holds it.
   */
  readSince(since: number): Promise<RequestLogEntry[]>;
}
