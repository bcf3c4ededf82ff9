import { Decimal, ZERO } from './money.js';

/**
 * Storage metering for vector stores (spec "Limits"): processed size × time, split by UTC day.
 * Pure bookkeeping over a JSON-serialisable state; the settlement job (storage-settlement.ts)
 * feeds it size changes and settles the complete days.
 */

export const DAY_MS = 86_400_000;
/** Decimal gigabytes, as OpenAI counts vector-store storage (usage_bytes / 10^9). */
export const BYTES_PER_GB = 1_000_000_000;

/** A store's size from `since` on; everything before `since` is already in `pending`. */
export interface MeteredStore {
  account: string;
  bytes: number;
  since: number;
}

export interface MeterState {
  stores: Record<string, MeteredStore>;
  /**
   * Byte·milliseconds not yet settled, per account and UTC day (YYYY-MM-DD), as decimal integer
   * strings: a gigabyte held for a day is 8.64·10^16, past what a float counts exactly.
   */
  pending: Record<string, Record<string, string>>;
}

export interface MeteredDay {
  account: string;
  day: string;
  byteMs: bigint;
}

export function emptyMeterState(): MeterState {
  return { stores: {}, pending: {} };
}

export function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

export function startOfUtcDay(time: number): number {
  return Math.floor(time / DAY_MS) * DAY_MS;
}

export class StorageMeter {
  constructor(private readonly state: MeterState = emptyMeterState()) {}

  /** Accrues the store at its previous size up to `at`, then records its size from `at` on. */
  observe(storeId: string, account: string, bytes: number, at: number): void {
    const store = this.state.stores[storeId];
    if (store === undefined) {
      this.state.stores[storeId] = { account, bytes, since: at };
      return;
    }
    this.accrue(store, at);
    store.bytes = bytes;
    store.account = account;
  }

  /** The store is gone at `at`: what it held until then stays pending for its day. */
  remove(storeId: string, at: number): void {
    const store = this.state.stores[storeId];
    if (store === undefined) return;
    this.accrue(store, at);
    delete this.state.stores[storeId];
  }

  /** Accrues every store up to `at` (before a settlement or a save). */
  accrueAll(at: number): void {
    for (const store of Object.values(this.state.stores)) this.accrue(store, at);
  }

  storeIds(): string[] {
    return Object.keys(this.state.stores);
  }

  bytesOf(storeId: string): number | undefined {
    return this.state.stores[storeId]?.bytes;
  }

  /**
   * Takes out every day that ended by `at` (stores accrued to `at` first), oldest first. A day
   * is taken once: what is returned is no longer pending.
   */
  takeCompleteDays(at: number): MeteredDay[] {
    this.accrueAll(at);
    const today = utcDay(at);
    const days: MeteredDay[] = [];
    for (const [account, byDay] of Object.entries(this.state.pending)) {
      for (const [day, byteMs] of Object.entries(byDay)) {
        if (day >= today) continue;
        days.push({ account, day, byteMs: BigInt(byteMs) });
        delete byDay[day];
      }
      if (Object.keys(byDay).length === 0) delete this.state.pending[account];
    }
    return days.sort((a, b) => a.day.localeCompare(b.day) || a.account.localeCompare(b.account));
  }

  /** A copy to persist (the meter keeps mutating its own). */
  snapshot(): MeterState {
    return structuredClone(this.state);
  }

  private accrue(store: MeteredStore, at: number): void {
    // A clock that stepped back accrues nothing; the size still changes from here.
    if (at <= store.since) return;
    let from = store.since;
    if (store.bytes > 0) {
      const bytes = BigInt(Math.round(store.bytes));
      while (from < at) {
        const end = Math.min(at, startOfUtcDay(from) + DAY_MS);
        this.add(store.account, utcDay(from), bytes * BigInt(Math.round(end - from)));
        from = end;
      }
    }
    store.since = at;
  }

  private add(account: string, day: string, byteMs: bigint): void {
    const byDay = (this.state.pending[account] ??= {});
    byDay[day] = (BigInt(byDay[day] ?? '0') + byteMs).toString();
  }
}

export interface DailyCharge {
  /** Time-weighted size over the day, in GB-days (= the day's average GB). */
  gbDays: Decimal;
  /** GB-days above the plan's free allowance (free GB × one day). */
  billableGbDays: Decimal;
  /** Rounded to 12 decimal places, like every amount igw records. */
  eur: Decimal;
}

/** One account-day's charge: usage above the free allowance times the GB-day price. */
export function dailyCharge(byteMs: bigint, freeGb: Decimal, eurPerGbDay: Decimal): DailyCharge {
  const gbDays = new Decimal(byteMs.toString()).div(BYTES_PER_GB).div(DAY_MS);
  const over = gbDays.minus(freeGb);
  const billableGbDays = over.greaterThan(0) ? over : ZERO;
  return { gbDays, billableGbDays, eur: billableGbDays.mul(eurPerGbDay).toDecimalPlaces(12, Decimal.ROUND_HALF_EVEN) };
}
