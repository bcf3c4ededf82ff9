import type pg from 'pg';
import { toDecimal, type Decimal } from '../../billing/money.js';
import type { AccountRecord } from '../accounts.js';
import type { AccountRepositoryPort } from '../repositories.js';
import type { ChangeFeed } from './change-feed.js';

interface AccountRow {
  id: string;
  plan: string;
  /** numeric as text; null = unlimited. */
  energy: string | null;
  credits: string | null;
  created_at: string | number;
  version: string | number;
}

interface CachedAccount {
  record: AccountRecord;
  version: number;
}

type Balance = 'energy' | 'credits';

/** Debits of one balance of one account not yet committed: at most one UPDATE in flight, the rest wait and go as one. */
interface PendingDebits {
  /** Sum of the debits not sent yet (already applied to the cached record). */
  unsent: Decimal;
  waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }>;
  inFlight: boolean;
}

const RETURNING = 'RETURNING id, plan, energy::text AS energy, credits::text AS credits, created_at, version';

/** Debits run as one statement each: the database subtracts, no instance reads then writes (DESIGN §2). */
const DEBIT = {
  energy: `UPDATE igw_accounts SET energy = energy - $2::numeric, version = version + 1 WHERE id = $1 ${RETURNING}`,
  credits: `UPDATE igw_accounts SET credits = credits - $2::numeric, version = version + 1 WHERE id = $1 ${RETURNING}`,
} as const;

function balanceText(value: string | null): string {
  // Same notation as the JSON store (no trailing zeros from numeric's scale).
  return value === null ? 'unlimited' : toDecimal(value).toFixed();
}

export function balanceValue(value: string): string | null {
  return value === 'unlimited' ? null : value;
}

function toCached(row: AccountRow): CachedAccount {
  return {
    record: { id: row.id, plan: row.plan, energy: balanceText(row.energy), credits: balanceText(row.credits), created_at: Number(row.created_at) },
    version: Number(row.version),
  };
}

/**
 * Accounts and balances in PostgreSQL (team mode). Preflight reads balances synchronously from
 * this instance's cache (loaded at start, kept current by the `igw_accounts` change feed). A debit
 * is applied to the cache at once — the next request on this instance sees it, as with the JSON
 * store — and atomically in the database; the row the database returns replaces the cached one.
 * So balances across instances never lose a debit; a balance may end slightly below zero by the
 * requests in flight when it reached zero, and the next request is refused (DESIGN §2).
 */
export class PostgresAccountRepository implements AccountRepositoryPort {
  private accounts = new Map<string, CachedAccount>();
  /** Keyed `balance:account`. */
  private readonly pending = new Map<string, PendingDebits>();
  private readonly idle = new Set<() => void>();

  private constructor(private readonly pool: pg.Pool) {}

  static async open(pool: pg.Pool, feed: ChangeFeed): Promise<PostgresAccountRepository> {
    const repository = new PostgresAccountRepository(pool);
    feed.subscribe('igw_accounts', { change: (payload) => repository.cache(toCached(JSON.parse(payload) as AccountRow)), resync: () => repository.load() });
    return repository;
  }

  async load(): Promise<void> {
    const { rows } = await this.pool.query<AccountRow>('SELECT id, plan, energy::text AS energy, credits::text AS credits, created_at, version FROM igw_accounts ORDER BY created_at, id');
    this.accounts = new Map(rows.map((row) => [row.id, toCached(row)]));
  }

  /** Takes a row from the database or the feed unless the cache already holds a newer one. */
  private cache(next: CachedAccount): AccountRecord {
    const current = this.accounts.get(next.record.id);
    if (current === undefined) {
      this.accounts.set(next.record.id, next);
      return next.record;
    }
    if (next.version > current.version) {
      // The record object stays the same: requests in flight hold it (Ledger.settle reads it).
      Object.assign(current.record, next.record);
      current.version = next.version;
      // Debits this instance applied but has not sent yet are not in any row: keep them applied.
      for (const balance of ['energy', 'credits'] as const) {
        const unsent = this.pending.get(`${balance}:${next.record.id}`)?.unsent;
        const value = current.record[balance];
        if (unsent !== undefined && !unsent.isZero() && value !== 'unlimited') current.record[balance] = toDecimal(value).minus(unsent).toFixed();
      }
    }
    return current.record;
  }

  get(id: string): AccountRecord | undefined {
    return this.accounts.get(id)?.record;
  }

  list(): AccountRecord[] {
    return [...this.accounts.values()].map((cached) => cached.record);
  }

  /** Inserts the account; when another instance created the same id a moment earlier, that one is kept (and cached). */
  async insert(record: AccountRecord): Promise<void> {
    const { rows } = await this.pool.query<AccountRow>(
      `INSERT INTO igw_accounts (id, plan, energy, credits, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING ${RETURNING}`,
      [record.id, record.plan, balanceValue(record.energy), balanceValue(record.credits), record.created_at],
    );
    const row = rows[0] ?? (await this.pool.query<AccountRow>(`SELECT id, plan, energy::text AS energy, credits::text AS credits, created_at, version FROM igw_accounts WHERE id = $1`, [record.id])).rows[0];
    if (row !== undefined) this.cache(toCached(row));
  }

  /** Sets the given fields (an admin's `igw accounts set`); a balance set here replaces the balance, debits before it included. */
  async update(id: string, change: Partial<AccountRecord>): Promise<AccountRecord | undefined> {
    const assignments: string[] = [];
    const parameters: unknown[] = [id];
    for (const field of ['plan', 'energy', 'credits'] as const) {
      const value = change[field];
      if (value === undefined) continue;
      parameters.push(field === 'plan' ? value : balanceValue(value));
      assignments.push(`${field} = $${parameters.length}`);
    }
    const { rows } = await this.pool.query<AccountRow>(`UPDATE igw_accounts SET ${[...assignments, 'version = version + 1'].join(', ')} WHERE id = $1 ${RETURNING}`, parameters);
    return rows[0] === undefined ? undefined : this.cache(toCached(rows[0]));
  }

  /**
   * Applied to the cache at once (the next preflight here sees it), then written to the database.
   * Debits of one balance are coalesced: while its UPDATE is in flight, the next ones add up and go
   * as one statement when it returns, so a busy account costs one row update (and one change
   * notice to every instance) per round trip, not per request. An unlimited balance stays
   * unlimited whatever is debited (NULL minus x is NULL): nothing to write.
   */
  debit(account: string, balance: Balance, amount: string): Promise<void> {
    const cached = this.accounts.get(account);
    if (cached === undefined) return Promise.resolve();
    const current = cached.record[balance];
    if (current === 'unlimited') return Promise.resolve();
    const debit = toDecimal(amount);
    cached.record[balance] = toDecimal(current).minus(debit).toFixed();
    const key = `${balance}:${account}`;
    let pending = this.pending.get(key);
    if (pending === undefined) {
      pending = { unsent: debit, waiters: [], inFlight: false };
      this.pending.set(key, pending);
    } else {
      pending.unsent = pending.unsent.plus(debit);
    }
    const done = new Promise<void>((resolve, reject) => pending.waiters.push({ resolve, reject }));
    if (!pending.inFlight) this.send(key, account, balance, pending);
    return done;
  }

  private send(key: string, account: string, balance: Balance, pending: PendingDebits): void {
    const amount = pending.unsent.toFixed();
    const waiters = pending.waiters;
    pending.unsent = toDecimal(0);
    pending.waiters = [];
    pending.inFlight = true;
    this.pool.query<AccountRow>(DEBIT[balance], [account, amount]).then(
      ({ rows }) => {
        pending.inFlight = false;
        if (rows[0] !== undefined) this.cache(toCached(rows[0]));
        for (const waiter of waiters) waiter.resolve();
        this.next(key, account, balance, pending);
      },
      (error: unknown) => {
        pending.inFlight = false;
        for (const waiter of waiters) waiter.reject(error);
        this.next(key, account, balance, pending);
      },
    );
  }

  /** Sends what added up meanwhile; forgets an idle balance and wakes flush() once nothing is pending. */
  private next(key: string, account: string, balance: Balance, pending: PendingDebits): void {
    if (pending.waiters.length > 0) {
      this.send(key, account, balance, pending);
      return;
    }
    this.pending.delete(key);
    if (this.pending.size === 0) {
      for (const wake of this.idle) wake();
      this.idle.clear();
    }
  }

  /** Resolves once every debit so far is committed (or failed: the failure went to its caller). */
  flush(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.add(resolve));
  }
}
