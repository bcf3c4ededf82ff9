import type pg from 'pg';
import type { Collection } from '../collection.js';

/** A change another instance made to a record: before (a copy) and after (the cached object, updated in place). */
export type RemoteRecordChange<T> = (key: string, before: T | undefined, after: T | undefined) => void;

/** One record announced on `igw_vs_records` (see the vector-stores migration). */
export interface RecordNotice {
  kind: string;
  key: string;
  origin: string;
  deleted?: boolean;
  /** Absent when the record was too large for a notification: read it back. */
  record?: unknown;
}

/**
 * A `Collection<T>` of vector-store records (stores, their files, file batches) in the
 * `igw_vs_records` table, one JSON document per record (team mode, DESIGN §4). Reads are from
 * memory, as with the data-dir collections; writes are coalesced and go out one transaction at a
 * time (so a record's versions reach the table in the order they were made). Changes made by
 * other instances arrive through the change feed (`apply`) and update the cached objects in
 * place, so a caller holding a record sees them; a notice for a record this instance is still
 * writing is set aside and the row read back once its writes are done (the table is the truth).
 */
export class PgRecordCollection<T extends object> implements Collection<T> {
  private readonly records = new Map<string, T>();
  /** Keys waiting to be written: 'put' writes the record as it is then; 'delete' removes the row. */
  private pending = new Map<string, 'put' | 'delete'>();
  private waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private writing: Promise<void> | null = null;
  /** Keys being written now: a remote notice for one of them is re-read after the write. */
  private inFlight = new Set<string>();
  private reread = new Set<string>();
  private readonly listeners = new Set<RemoteRecordChange<T>>();
  private closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    readonly kind: string,
    private readonly keyOf: (record: T) => string,
    private readonly origin: string,
  ) {}

  /** Loads every record of `kind`, oldest first. */
  static async open<T extends object>(pool: pg.Pool, kind: string, keyOf: (record: T) => string, origin: string): Promise<PgRecordCollection<T>> {
    const collection = new PgRecordCollection<T>(pool, kind, keyOf, origin);
    const { rows } = await pool.query<{ key: string; record: T }>('SELECT key, record FROM igw_vs_records WHERE kind = $1 ORDER BY position', [kind]);
    for (const row of rows) collection.records.set(row.key, row.record);
    return collection;
  }

  get size(): number {
    return this.records.size;
  }

  get(key: string): T | undefined {
    return this.records.get(key);
  }

  has(key: string): boolean {
    return this.records.has(key);
  }

  values(): IterableIterator<T> {
    return this.records.values();
  }

  /** Listens to changes made by other instances (after this collection's cache took them). */
  onRemoteChange(listener: RemoteRecordChange<T>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  put(...records: T[]): Promise<void> {
    for (const record of records) {
      const key = this.keyOf(record);
      this.records.set(key, record);
      this.pending.set(key, 'put');
    }
    return this.schedule(records.length);
  }

  delete(...keys: string[]): Promise<void> {
    for (const key of keys) {
      this.records.delete(key);
      this.pending.set(key, 'delete');
    }
    return this.schedule(keys.length);
  }

  private schedule(count: number): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`the ${this.kind} records are closed`));
    if (count === 0) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.writing ??= this.drain();
    return done;
  }

  /** Writes what is pending, batch after batch, until nothing is. */
  private async drain(): Promise<void> {
    while (this.pending.size > 0) {
      const batch = this.pending;
      const waiters = this.waiters;
      this.pending = new Map();
      this.waiters = [];
      this.inFlight = new Set(batch.keys());
      try {
        await this.write(batch);
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        for (const waiter of waiters) waiter.reject(error);
      }
      this.inFlight = new Set();
      for (const key of [...this.reread]) {
        if (this.pending.has(key)) continue;
        this.reread.delete(key);
        await this.readBack(key).catch(() => undefined);
      }
    }
    this.writing = null;
  }

  private async write(batch: Map<string, 'put' | 'delete'>): Promise<void> {
    const puts: Array<{ key: string; record: string }> = [];
    const deletes: string[] = [];
    for (const [key, change] of batch) {
      const record = this.records.get(key);
      if (change === 'put' && record !== undefined) puts.push({ key, record: JSON.stringify(record) });
      else deletes.push(key);
    }
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      if (puts.length > 0) {
        await client.query(
          `INSERT INTO igw_vs_records (kind, key, record, origin)
           SELECT $1, key, record::jsonb, $2 FROM unnest($3::text[], $4::text[]) AS t(key, record)
           ON CONFLICT (kind, key) DO UPDATE SET record = EXCLUDED.record, origin = EXCLUDED.origin`,
          [this.kind, this.origin, puts.map((put) => put.key), puts.map((put) => put.record)],
        );
      }
      if (deletes.length > 0) {
        await client.query("SELECT set_config('igw.origin', $1, true)", [this.origin]);
        await client.query('DELETE FROM igw_vs_records WHERE kind = $1 AND key = ANY($2::text[])', [this.kind, deletes]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** A change announced on the feed. Own changes are skipped: the cache made them. */
  apply(notice: RecordNotice): void {
    if (notice.origin === this.origin) return;
    if (this.pending.has(notice.key) || this.inFlight.has(notice.key)) {
      this.reread.add(notice.key);
      return;
    }
    if (notice.deleted === true) return this.adopt(notice.key, undefined);
    if (notice.record === undefined || notice.record === null) {
      void this.readBack(notice.key).catch(() => undefined);
      return;
    }
    this.adopt(notice.key, notice.record as T);
  }

  /** Reads every record again (the feed was down: notices may have been missed). */
  async reload(): Promise<void> {
    const { rows } = await this.pool.query<{ key: string; record: T }>('SELECT key, record FROM igw_vs_records WHERE kind = $1 ORDER BY position', [this.kind]);
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.key);
      if (!this.pending.has(row.key) && !this.inFlight.has(row.key)) this.adopt(row.key, row.record);
    }
    for (const key of [...this.records.keys()]) {
      if (!seen.has(key) && !this.pending.has(key) && !this.inFlight.has(key)) this.adopt(key, undefined);
    }
  }

  private async readBack(key: string): Promise<void> {
    const { rows } = await this.pool.query<{ record: T }>('SELECT record FROM igw_vs_records WHERE kind = $1 AND key = $2', [this.kind, key]);
    if (this.pending.has(key) || this.inFlight.has(key)) return;
    this.adopt(key, rows[0]?.record);
  }

  /** Takes the table's version of a record into the cache, keeping the cached object's identity. */
  private adopt(key: string, fresh: T | undefined): void {
    const cached = this.records.get(key);
    const before = cached === undefined ? undefined : ({ ...cached } as T);
    let after: T | undefined;
    if (fresh === undefined) {
      if (cached === undefined) return;
      this.records.delete(key);
    } else if (cached !== undefined) {
      Object.assign(cached, fresh);
      after = cached;
    } else {
      this.records.set(key, fresh);
      after = fresh;
    }
    for (const listener of this.listeners) listener(key, before, after);
  }

  async close(): Promise<void> {
    await this.writing;
    this.closed = true;
  }
}
