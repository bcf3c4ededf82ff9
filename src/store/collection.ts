/**
 * Typed, keyed records persisted under the data dir: what a feature repository (batches, vector
 * stores, keys, files) needs from storage, and nothing of how it is stored. Two implementations:
 * DocumentCollection (one JSON document rewritten whole: small collections that change rarely)
 * and JournalCollection (snapshot + append-only journal: collections that grow with use).
 * Reads are in memory; records keep their insertion order (a change keeps the place).
 */
export interface Collection<T> {
  readonly size: number;
  get(key: string): T | undefined;
  has(key: string): boolean;
  /** Records in insertion order (live: do not change the collection while iterating). */
  values(): IterableIterator<T>;
  /**
   * Inserts or replaces records by key; resolves once they are durable. A record changed in
   * place is written by putting it again (the record as it is now is what gets written).
   */
  put(...records: T[]): Promise<void>;
  /** Removes records by key (unknown keys are ignored); resolves once durable. */
  delete(...keys: string[]): Promise<void>;
  /** Waits for pending writes (shutdown); a closed collection refuses further changes. */
  close(): Promise<void>;
}
