import type pg from 'pg';
import type { Collection } from '../collection.js';
import type { RecordChange, RecordFeed } from './record-feed.js';

export interface PostgresCollectionOptions<T, M> {
  /** The record's key, unique in the collection. */
  key: (record: T) => string;
  /** The meta document's defaults (JournalCollection's `meta`); fields set by `setMeta` override them. */
  meta?: M;
}

/** Called with a record another instance put (or `undefined`: it deleted it). */
export type RemoteChangeListener<T> = (key: string, record: T | undefined) => void;

/** What services get to open team collections (ARCHITECTURE principle 7: a narrow port, not the store). */
export interface CollectionOpener {
  open<T, M extends object = Record<string, never>>(name: string, options: PostgresCollectionOptions<T, M>): Promise<PostgresCollection<T, M>>;
}

interface RecordRow {
  key: string;
  value: unknown;
  version: string;
  position: string;
}

/** A change announced by another instance, waiting to be read. */
interface Pending {
  version: number;
  op: 'put' | 'delete';
}

const UPSERT = `INSERT INTO igw_records (collection, key, value)
  SELECT $1, k, v::json FROM unnest($2::text[], $3::text[]) AS t(k, v)
  ON CONFLICT (collection, key) DO UPDATE SET value = EXCLUDED.value, version = nextval('igw_records_version')
  RETURNING key, version, position`;

const SET_META = `INSERT INTO igw_record_meta (collection, meta) VALUES ($1, $2::jsonb)
  ON CONFLICT (collection) DO UPDATE SET meta = igw_record_meta.meta || EXCLUDED.meta, version = nextval('igw_records_version')
  RETURNING meta, version`;

/** A failed read of announced changes is retried after this long (the feed itself reconnects on its own). */
const RETRY_MS = 1000;

/**
 * A `Collection` in PostgreSQL (team mode, issue 19; DESIGN §4): every instance on the database
 * sees the same records. Records live in the generic `igw_records` table (one row per record,
 * JSON value); reads come from this instance's in-memory cache, loaded at open and kept current
 * by the `igw_records` change feed: a trigger announces {collection, key, op, version} and each
 * other instance re-reads that row (a NOTIFY payload is limited to 8000 bytes, a record is not).
 *
 * Every write takes a new version from one sequence, so a cache applies a row only when it is
 * newer than what it holds, and skips the announcements of its own writes. Announcements are
 * applied one batch at a time, after this instance's writes in flight: a key this instance is
 * writing keeps what it wrote until its write is done, then the announcement is looked at again.
 * After the feed reconnects the whole collection is read again (changes may have been missed).
 * Records keep their insertion order (the `position` column; a change keeps the place).
 */
export class PostgresCollection<T, M extends object = Record<string, never>> implements Collection<T> {
  private records = new Map<string, T>();
  private versions = new Map<string, number>();
  /** Each record's place in the table's order: a row back at another place was deleted and put again. */
  private positions = new Map<string, number>();
  private currentMeta: M;
  private metaVersion = 0;
  /** Local writes in flight: per key, the last one (writes of a key run one after another). */
  private readonly writing = new Map<string, Promise<void>>();
  /** The last setMeta in flight (they run one after another, like writes of one key). */
  private metaWriting: Promise<void> = Promise.resolve();
  /** setMeta changes in flight, in order. */
  private readonly metaChanges: Array<Partial<M>> = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Other instances' changes not applied yet: key → the latest announcement. */
  private readonly announced = new Map<string, Pending>();
  private announcedMeta = 0;
  /** Loads and announcement batches run one after another, in the order they were scheduled. */
  private tail: Promise<void> = Promise.resolve();
  private drainScheduled = false;
  private readonly listeners = new Set<RemoteChangeListener<T>>();
  private unregister: () => void = () => undefined;
  private closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly feed: RecordFeed,
    readonly name: string,
    private readonly options: PostgresCollectionOptions<T, M>,
  ) {
    this.currentMeta = { ...(options.meta ?? ({} as M)) };
  }

  /** Opens collection `name` (listening before loading, so no change committed meanwhile is missed). */
  static async open<T, M extends object = Record<string, never>>(pool: pg.Pool, feed: RecordFeed, name: string, options: PostgresCollectionOptions<T, M>): Promise<PostgresCollection<T, M>> {
    const collection = new PostgresCollection<T, M>(pool, feed, name, options);
    collection.unregister = feed.register(name, { change: (change) => collection.announce(change), resync: () => collection.schedule(() => collection.load(true)) });
    try {
      await collection.schedule(() => collection.load(false));
    } catch (error) {
      collection.unregister();
      throw error;
    }
    return collection;
  }

  get size(): number {
    return this.records.size;
  }

  get meta(): Readonly<M> {
    return this.currentMeta;
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

  /** Listens to other instances' changes (after they are in this cache); returns the unsubscription. */
  onRemoteChange(listener: RemoteChangeListener<T>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Upserts the records in one statement; the cache has them at once (reads on this instance see them). */
  put(...records: T[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`team store: collection ${this.name} is closed`));
    const latest = new Map<string, T>(); // one row per key per statement (ON CONFLICT cannot touch a row twice)
    for (const record of records) {
      const key = this.options.key(record);
      latest.set(key, record);
      this.records.set(key, record);
    }
    if (latest.size === 0) return Promise.resolve();
    const keys = [...latest.keys()];
    return this.track(keys, async () => {
      const { rows } = await this.pool.query<{ key: string; version: string; position: string }>(UPSERT, [this.name, keys, [...latest.values()].map((record) => JSON.stringify(record))]);
      for (const row of rows) {
        if (!this.records.has(row.key)) continue; // deleted again meanwhile
        this.versions.set(row.key, Number(row.version));
        this.positions.set(row.key, Number(row.position));
      }
    });
  }

  /** Deletes by key, also keys this cache has not seen yet (another instance's fresh record). */
  delete(...keys: string[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`team store: collection ${this.name} is closed`));
    if (keys.length === 0) return Promise.resolve();
    for (const key of keys) {
      this.records.delete(key);
      this.versions.delete(key);
      this.positions.delete(key);
    }
    return this.track(keys, async () => {
      await this.pool.query('DELETE FROM igw_records WHERE collection = $1 AND key = ANY($2::text[])', [this.name, keys]);
    });
  }

  /**
   * Merges `change` into the meta document (field by field in the database: `jsonb ||`). The
   * database answers with the merged document, which holds other instances' fields too.
   */
  setMeta(change: Partial<M>): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`team store: collection ${this.name} is closed`));
    this.currentMeta = { ...this.currentMeta, ...change };
    this.metaChanges.push(change);
    const written = this.metaWriting
      .catch(() => undefined)
      .then(() => this.pool.query<{ meta: Partial<M>; version: string }>(SET_META, [this.name, JSON.stringify(change)]))
      .then(({ rows }) => this.takeMeta(rows[0]!.meta, Number(rows[0]!.version)))
      .finally(() => {
        this.metaChanges.splice(this.metaChanges.indexOf(change), 1);
      });
    this.metaWriting = written;
    return this.follow(written, () => {
      this.metaVersion = 0; // read the database's meta back, whatever its version
      this.reannounceMeta();
    });
  }

  /** Takes the database's meta when newer; this instance's changes still in flight stay on top. */
  private takeMeta(meta: Partial<M>, version: number): void {
    if (version <= this.metaVersion) return;
    this.metaVersion = version;
    this.currentMeta = Object.assign({ ...(this.options.meta ?? ({} as M)), ...meta }, ...this.metaChanges) as M;
  }

  /** Waits for writes in flight and stops following the feed; further changes are refused. */
  async close(): Promise<void> {
    this.closed = true;
    this.unregister();
    await Promise.allSettled([...this.inFlight]);
    await this.tail.catch(() => undefined);
  }

  /**
   * Runs a write after this instance's earlier writes of the same keys (pool connections would
   * otherwise commit two quick puts of one key in either order, and the older could win).
   */
  private track(keys: string[], write: () => Promise<void>): Promise<void> {
    const earlier = keys.flatMap((key) => this.writing.get(key) ?? []);
    const written = earlier.length === 0 ? write() : Promise.allSettled(earlier).then(write);
    for (const key of keys) this.writing.set(key, written);
    void written.catch(() => undefined).finally(() => {
      for (const key of keys) if (this.writing.get(key) === written) this.writing.delete(key);
    });
    // A failed write leaves the cache holding what the database refused: read those rows back.
    return this.follow(written, () => {
      for (const key of keys) this.announce({ collection: this.name, key, op: 'put', version: Number.MAX_SAFE_INTEGER });
    });
  }

  private follow(written: Promise<void>, onFailure: () => void): Promise<void> {
    this.inFlight.add(written);
    const settled = written.catch((error: unknown) => {
      onFailure();
      throw error;
    });
    void settled.catch(() => undefined).finally(() => this.inFlight.delete(written));
    return settled;
  }

  private reannounceMeta(): void {
    this.announce({ collection: this.name, key: null, op: 'meta', version: Number.MAX_SAFE_INTEGER });
  }

  private schedule(task: () => Promise<void>): Promise<void> {
    const run = this.tail.then(task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Notes another instance's change; the next batch reads it. */
  private announce(change: RecordChange): void {
    if (this.closed) return;
    if (change.key === null) {
      this.announcedMeta = Math.max(this.announcedMeta, change.version);
    } else {
      const previous = this.announced.get(change.key);
      // The latest announcement wins; at the same version a delete came after the put.
      if (previous === undefined || change.version > previous.version || (change.version === previous.version && change.op === 'delete')) {
        this.announced.set(change.key, { version: change.version, op: change.op === 'delete' ? 'delete' : 'put' });
      }
    }
    this.scheduleDrain();
  }

  private scheduleDrain(): void {
    if (this.drainScheduled || this.closed) return;
    this.drainScheduled = true;
    void this.schedule(() => this.drain()).catch((error: unknown) => {
      this.feed.logger.warn('team store: could not read changes announced by another instance; retrying', { collection: this.name, error: String(error) });
      setTimeout(() => this.scheduleDrain(), RETRY_MS).unref();
    });
  }

  /** Whether an announced change can change what this cache holds. */
  private stale(key: string, pending: Pending): boolean {
    const held = this.versions.get(key) ?? 0;
    if (pending.op === 'delete') return this.records.has(key) && held <= pending.version;
    return held < pending.version;
  }

  /** Applies the announced changes: reads the rows they name, in one query. */
  private async drain(): Promise<void> {
    this.drainScheduled = false;
    await Promise.allSettled([...this.inFlight]);
    const batch = [...this.announced].filter(([key, pending]) => this.stale(key, pending));
    this.announced.clear();
    const metaWanted = this.announcedMeta > this.metaVersion;
    this.announcedMeta = 0;
    try {
      if (batch.length > 0) await this.applyRows(batch);
      if (metaWanted) await this.applyMeta();
    } catch (error) {
      // Nothing was lost: announce again what this batch was to apply.
      for (const [key, pending] of batch) if (!this.announced.has(key)) this.announced.set(key, pending);
      if (metaWanted) this.announcedMeta = Number.MAX_SAFE_INTEGER;
      throw error;
    }
  }

  private async applyRows(batch: Array<[string, Pending]>): Promise<void> {
    const { rows } = await this.pool.query<RecordRow>('SELECT key, value, version, position FROM igw_records WHERE collection = $1 AND key = ANY($2::text[])', [this.name, batch.map(([key]) => key)]);
    const found = new Map(rows.map((row) => [row.key, row]));
    // New records join in the table's order (announcements of one key merge, so theirs may differ).
    const place = (key: string) => Number(found.get(key)?.position ?? Number.MAX_SAFE_INTEGER);
    batch.sort(([one], [other]) => place(one) - place(other));
    for (const [key, pending] of batch) {
      if (this.writing.has(key)) {
        // This instance started writing the key meanwhile: look again once that write is done.
        this.announce({ collection: this.name, key, op: pending.op, version: pending.version });
        continue;
      }
      const row = found.get(key);
      if (row !== undefined) {
        if (Number(row.version) <= (this.versions.get(key) ?? 0)) continue;
        // Deleted and put again on the other instance: it goes last, as it does there.
        if (this.positions.get(key) !== Number(row.position)) this.records.delete(key);
        this.records.set(key, row.value as T);
        this.versions.set(key, Number(row.version));
        this.positions.set(key, Number(row.position));
        this.emit(key, row.value as T);
      } else if (this.records.delete(key)) {
        this.versions.delete(key);
        this.positions.delete(key);
        this.emit(key, undefined);
      }
    }
  }

  private async applyMeta(): Promise<void> {
    const { rows } = await this.pool.query<{ meta: Partial<M>; version: string }>('SELECT meta, version FROM igw_record_meta WHERE collection = $1', [this.name]);
    if (rows[0] !== undefined) this.takeMeta(rows[0].meta, Number(rows[0].version));
  }

  /**
   * Reads the whole collection (at open, and after the feed reconnected). Records this instance is
   * writing keep what it wrote; unchanged records keep their object (callers may hold it). With
   * `announce`, what changed meanwhile is told to the remote-change listeners.
   */
  private async load(announce: boolean): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    await this.applyMeta();
    const { rows } = await this.pool.query<RecordRow>('SELECT key, value, version, position FROM igw_records WHERE collection = $1 ORDER BY position', [this.name]);
    const records = new Map<string, T>();
    const versions = new Map<string, number>();
    const positions = new Map<string, number>();
    const changed: string[] = [];
    for (const row of rows) {
      const version = Number(row.version);
      const current = this.records.get(row.key);
      const same = current !== undefined && this.versions.get(row.key) === version;
      records.set(row.key, same ? current : (row.value as T));
      versions.set(row.key, version);
      positions.set(row.key, Number(row.position));
      if (!same) changed.push(row.key);
    }
    for (const key of this.writing.keys()) {
      const mine = this.records.get(key);
      if (mine === undefined) records.delete(key);
      else records.set(key, mine);
      versions.set(key, this.versions.get(key) ?? 0);
      const position = this.positions.get(key);
      if (position !== undefined) positions.set(key, position);
    }
    const removed = [...this.records.keys()].filter((key) => !records.has(key));
    this.records = records;
    this.versions = versions;
    this.positions = positions;
    // In the same turn as the swap: a listener hears of a change as soon as a read can see it.
    if (!announce) return;
    for (const key of changed) if (!this.writing.has(key)) this.emit(key, records.get(key));
    for (const key of removed) this.emit(key, undefined);
  }

  private emit(key: string, record: T | undefined): void {
    for (const listener of this.listeners) {
      try {
        listener(key, record);
      } catch (error) {
        this.feed.logger.error('team store: a remote-change listener failed', { collection: this.name, key, error: String(error) });
      }
    }
  }
}

/** The opener the postgres store hands to services (composition root). */
export function collectionOpener(pool: pg.Pool, feed: RecordFeed): CollectionOpener {
  return { open: (name, options) => PostgresCollection.open(pool, feed, name, options) };
}
