import type { Config } from '../config/load.js';
import type { PlanConfig } from '../config/schema.js';
import type { AccountRepositoryPort } from '../store/repositories.js';
import type { RequestLogEntry } from '../store/request-log.js';
import type { RequestLogPort } from '../store/repositories.js';
import type { Clock } from '../util/clock.js';
import type { IdGenerator } from '../util/ids.js';
import type { Logger } from '../util/logger.js';
import type { TimerHandle, Timers } from '../util/timers.js';
import type { Ledger } from './ledger.js';
import { formatDecimal, parseBalance, toDecimal, type Balance } from './money.js';
import type { SettlementState } from './settlement-state.js';
import { DAY_MS, StorageMeter, dailyCharge, startOfUtcDay } from './storage-meter.js';

/** A live store's processed size (what its `usage_bytes` shows). */
export interface StoreSize {
  storeId: string;
  account: string;
  bytes: number;
}

/** What the settlement needs from vector stores (implemented by vector-stores/storage-usage.ts). */
export interface StorageSource {
  /** Every live (not expired) store. */
  sizes(): StoreSize[];
  /** One store; undefined once it is deleted or expired. */
  size(storeId: string): StoreSize | undefined;
  /** Deletes the account's live stores; returns their ids. */
  removeStoresOf(account: string): Promise<string[]>;
  onSizeChange(listener: (storeId: string) => void): () => void;
}

export interface StorageSettlementOptions {
  /** The data dir's storage_billing.json, or one row in PostgreSQL shared by the team (settlement-state.ts). */
  state: SettlementState;
  config: Config;
  accounts: AccountRepositoryPort;
  ledger: Ledger;
  requestLog: RequestLogPort;
  storage: StorageSource;
  clock: Clock;
  timers: Timers;
  ids: IdGenerator;
  logger: Logger;
}

export const STORAGE_ENDPOINT = '/v1/vector_stores (storage)';
export const STORAGE_REMOVAL_ENDPOINT = '/v1/vector_stores (storage unpaid: stores removed)';

/** Sizes are also re-read this often, so a missed size-change notice costs at most this much accuracy. */
const RESYNC_MS = 10 * 60_000;

/**
 * Daily storage settlement (spec "Limits"): meters every store's processed size over time, and
 * after each UTC midnight charges each account's previous day above its plan's free allowance to
 * credits, with a request-log line per account-day. Days missed while igw was down are settled at
 * the next start. An account whose credits stay negative past `billing.storage_grace_days` has its
 * stores removed. The meter lives in the settlement state, changed alone (in team mode every
 * instance meters the same shared sizes; whichever settles a day first takes it out of the
 * state, so it is charged once).
 */
export class StorageSettlement {
  private timer: TimerHandle | null = null;
  private chain: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | null = null;
  private closed = false;
  /**
   * Stores whose size changed since the last tick, with the time of their latest change. Sizes
   * are summed at the next tick, not per notice: summing a store's files on every ingested file
   * would make ingestion cost grow with the store. Several changes within one tick count from the
   * last one (at most a tick's worth of growth goes unbilled).
   */
  private readonly changed = new Map<string, number>();

  private constructor(private readonly options: StorageSettlementOptions) {}

  static open(options: StorageSettlementOptions): StorageSettlement {
    return new StorageSettlement(options);
  }

  /** Settles what is due (days missed while down included), then follows size changes and the clock. */
  async start(): Promise<void> {
    this.unsubscribe = this.options.storage.onSizeChange((storeId) => {
      if (this.closed) return;
      this.changed.set(storeId, this.options.clock.now());
      if (this.options.state.shared) void this.flushChanges();
    });
    await this.tick();
  }

  /** Runs what is due now: re-read sizes, settle complete days, enforce the grace period, save. */
  tick(): Promise<void> {
    const run = async () => {
      if (this.closed) return;
      try {
        await this.runDue(this.options.clock.now());
      } catch (error) {
        this.options.logger.error('storage settlement failed', { error: String(error) });
      }
      this.schedule();
    };
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Writes the size changes noticed so far into the state (team mode: at once, see SettlementState.shared). */
  private flushChanges(): Promise<void> {
    const run = async () => {
      if (this.changed.size === 0) return;
      await this.options.state.update((state) => this.observeChanges(new StorageMeter(state.meter))).catch((error: unknown) => this.options.logger.warn('storage settlement: could not record a size change; the next check re-reads sizes', { error: String(error) }));
    };
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    if (this.timer !== null) this.options.timers.clearTimeout(this.timer);
    await this.chain;
    const now = this.options.clock.now();
    await this.options.state.update((state) => {
      const meter = new StorageMeter(state.meter);
      this.observeChanges(meter);
      meter.accrueAll(now);
    });
  }

  private observeChanges(meter: StorageMeter): void {
    for (const [storeId, at] of this.changed) {
      const size = this.options.storage.size(storeId);
      if (size === undefined) meter.remove(storeId, at);
      else meter.observe(storeId, size.account, size.bytes, at);
    }
    this.changed.clear();
  }

  private schedule(): void {
    if (this.closed) return;
    const now = this.options.clock.now();
    const next = Math.min(startOfUtcDay(now) + DAY_MS, now + RESYNC_MS);
    this.timer = this.options.timers.setTimeout(() => this.tick(), next - now);
  }

  private async runDue(now: number): Promise<void> {
    const live = this.options.storage.sizes();
    const price = toDecimal(this.options.config.billing.storage_eur_per_gb_day);
    // The days taken are saved before any debit: a crash in between loses at most this settlement, never charges it twice.
    const charges = await this.options.state.update((state) => {
      const meter = new StorageMeter(state.meter);
      this.observeChanges(meter);
      const liveIds = new Set(live.map((size) => size.storeId));
      for (const size of live) meter.observe(size.storeId, size.account, size.bytes, now);
      for (const storeId of meter.storeIds()) if (!liveIds.has(storeId)) meter.remove(storeId, now);
      return meter.takeCompleteDays(now).map((day) => ({ ...day, ...dailyCharge(day.byteMs, toDecimal(this.planOf(day.account).storage_free_gb), price) }));
    });
    for (const charge of charges) {
      if (charge.eur.greaterThan(0)) await this.options.accounts.debit(charge.account, 'credits', charge.eur.toFixed());
      const eur = formatDecimal(charge.eur);
      this.options.requestLog.append({
        ...this.logLine(now, charge.account, STORAGE_ENDPOINT),
        eur,
        paid_with: charge.eur.greaterThan(0) ? 'credits' : null,
        storage_day: charge.day,
        storage_gb_days: formatDecimal(charge.gbDays),
      });
      this.options.logger.info('vector store storage settled', { account: charge.account, day: charge.day, gb_days: formatDecimal(charge.gbDays), billable_gb_days: formatDecimal(charge.billableGbDays), eur });
    }
    const charged = new Set(charges.filter((charge) => charge.eur.greaterThan(0)).map((charge) => charge.account));
    await this.options.state.update((state) => this.enforceGrace(now, charged, live, state.negative_since));
  }

  /**
   * The grace clock of an account starts at a storage charge that leaves its credits below zero
   * (a balance negative for other reasons, with storage inside the allowance, never starts it),
   * stops once credits are back at zero or above, and at `storage_grace_days` removes its stores.
   */
  private async enforceGrace(now: number, charged: ReadonlySet<string>, live: readonly StoreSize[], negativeSince: Record<string, number>): Promise<void> {
    const owners = new Set(live.map((size) => size.account));
    const graceMs = this.options.config.billing.storage_grace_days * DAY_MS;
    for (const account of new Set([...charged, ...Object.keys(negativeSince)])) {
      const credits = this.creditsOf(account);
      if (!owners.has(account) || credits === 'unlimited' || credits.greaterThanOrEqualTo(0)) {
        delete negativeSince[account];
        continue;
      }
      const since = (negativeSince[account] ??= now);
      if (now - since < graceMs) continue;
      const removed = await this.options.storage.removeStoresOf(account);
      delete negativeSince[account];
      this.options.logger.warn('vector stores removed: storage unpaid past the grace period', {
        account,
        vector_store_ids: removed,
        credits: formatDecimal(credits),
        negative_since: new Date(since).toISOString(),
        grace_days: this.options.config.billing.storage_grace_days,
      });
      this.options.requestLog.append({ ...this.logLine(now, account, STORAGE_REMOVAL_ENDPOINT), status: 402, error_code: 'BILLING_2003' });
    }
  }

  private creditsOf(account: string): Balance {
    const record = this.options.accounts.get(account);
    return record === undefined ? 'unlimited' : parseBalance(record.credits);
  }

  private planOf(account: string): PlanConfig {
    const record = this.options.accounts.get(account);
    if (record !== undefined) return this.options.ledger.plan(record).plan;
    return this.options.config.plans[this.options.config.default_plan]!;
  }

  private logLine(now: number, account: string, endpoint: string): RequestLogEntry {
    return {
      time: new Date(now).toISOString(),
      request_id: this.options.ids.next('storage_'),
      key_id: null,
      account,
      endpoint,
      model: null,
      provider: null,
      route: null,
      status: 200,
      error_code: null,
      latency_ms: 0,
      input_tokens: 0,
      output_tokens: 0,
      eur: '0',
      energy: '0',
      paid_with: null,
      energy_kwh: 0,
      carbon_g_co2: 0,
      stream: false,
      kind: 'storage',
    };
  }
}
