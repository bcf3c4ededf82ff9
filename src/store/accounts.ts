import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BatchedAppender } from './batched-appender.js';
import { JsonDocument } from './json-document.js';

/** Balances are decimal strings or `unlimited` (never floats). */
export interface AccountRecord {
  id: string;
  plan: string;
  energy: string;
  credits: string;
  created_at: number;
}

interface AccountsDocument {
  accounts: AccountRecord[];
  /** Highest balance-journal sequence already folded into `accounts`. */
  journal_seq: number;
}

/** One debit, appended to balances.jsonl before the snapshot catches up. */
export interface JournalEntry {
  seq: number;
  account: string;
  /** Which balance, and the decimal amount debited (negative = credit). */
  balance: 'energy' | 'credits';
  amount: string;
}

/**
 * Accounts with balances. Per-request debits are appended to a journal (one short line each),
 * never a rewrite of accounts.json; the snapshot is rewritten in the background and at shutdown,
 * and replaying the journal on open loses nothing after a crash.
 */
export class AccountRepository {
  private chain: Promise<void> = Promise.resolve();
  private sequence: number;
  private snapshotTimer: NodeJS.Timeout | null = null;
  /** Debits are batched: one write per few milliseconds, not one per request. */
  private readonly journal: BatchedAppender;

  private constructor(
    private readonly database: JsonDocument<AccountsDocument>,
    private readonly journalPath: string,
    private readonly applyEntry: (record: AccountRecord, entry: JournalEntry) => void,
  ) {
    this.sequence = database.value.journal_seq;
    this.journal = new BatchedAppender(journalPath, 10);
  }

  static async open(dataDir: string, applyEntry: (record: AccountRecord, entry: JournalEntry) => void): Promise<AccountRepository> {
    const database = await JsonDocument.open<AccountsDocument>(dataDir, 'accounts', { accounts: [], journal_seq: 0 });
    const repository = new AccountRepository(database, path.join(dataDir, 'balances.jsonl'), applyEntry);
    await repository.replayJournal();
    return repository;
  }

  private async replayJournal(): Promise<void> {
    let text = '';
    try {
      text = await readFile(this.journalPath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let entry: JournalEntry;
      try {
        entry = JSON.parse(line) as JournalEntry;
      } catch {
        continue; // a torn last line from a crash mid-append: that debit never completed
      }
      if (entry.seq <= this.database.value.journal_seq) continue;
      const record = this.get(entry.account);
      if (record !== undefined) this.applyEntry(record, entry);
      this.sequence = Math.max(this.sequence, entry.seq);
    }
    if (this.sequence > this.database.value.journal_seq) await this.snapshot();
  }

  get(id: string): AccountRecord | undefined {
    return this.database.value.accounts.find((record) => record.id === id);
  }

  list(): AccountRecord[] {
    return [...this.database.value.accounts];
  }

  async insert(record: AccountRecord): Promise<void> {
    this.database.value.accounts.push(record);
    await this.snapshot();
  }

  async update(id: string, change: Partial<AccountRecord>): Promise<AccountRecord | undefined> {
    const record = this.get(id);
    if (record === undefined) return undefined;
    Object.assign(record, change);
    await this.snapshot();
    return record;
  }

  /** Applies a debit in memory now and journals it; the returned promise resolves once it is on disk. */
  debit(account: string, balance: 'energy' | 'credits', amount: string): Promise<void> {
    const record = this.get(account);
    if (record === undefined) return Promise.resolve();
    this.sequence += 1;
    const entry: JournalEntry = { seq: this.sequence, account, balance, amount };
    this.applyEntry(record, entry);
    const written = this.journal.append(JSON.stringify(entry));
    this.scheduleSnapshot();
    return written;
  }

  private scheduleSnapshot(): void {
    if (this.snapshotTimer !== null) return;
    this.snapshotTimer = setTimeout(() => {
      this.snapshotTimer = null;
      void this.snapshot().catch(() => undefined);
    }, 2000);
    this.snapshotTimer.unref();
  }

  /** Writes accounts.json with every journalled debit folded in, then empties the journal. */
  snapshot(): Promise<void> {
    const run = async () => {
      // Everything appended so far must be on disk before the snapshot claims it.
      await this.journal.close();
      this.database.value.journal_seq = this.sequence;
      await this.database.write();
      // Entries up to journal_seq are now in the snapshot; a crash before this truncation is harmless (seq check).
      await writeFile(this.journalPath, '', { mode: 0o600 });
    };
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  async flush(): Promise<void> {
    if (this.snapshotTimer !== null) {
      clearTimeout(this.snapshotTimer);
      this.snapshotTimer = null;
    }
    await this.snapshot();
  }
}
