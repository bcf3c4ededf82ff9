import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import type { Collection } from './collection.js';
import { JournalFile } from './journal-file.js';

/** The snapshot file of a journalled collection (`<name>.json`). */
interface Snapshot<T, M> {
  format: 'igw-journal-snapshot';
  /** Highest journal sequence folded into `records` and `meta`. */
  journal_seq: number;
  meta: M;
  records: T[];
}

/** One line of `<name>.jsonl`. */
type Entry<T, M> = { seq: number; put: T } | { seq: number; del: string } | { seq: number; meta: Partial<M> };

export interface CollectionOptions<T, M> {
  /** The record's key, unique in the collection. */
  key: (record: T) => string;
  meta: M;
  /**
   * Reads `<name>.json` as written before collections were journalled (one lowdb document,
   * rewritten whole per change); the data dir opens unchanged and the next compaction rewrites it.
   */
  legacy?: (document: unknown) => { records: T[]; meta?: Partial<M> };
}

/** Journal lines tolerated before a compaction, at least (a small collection compacts rarely). */
const MIN_COMPACT_LINES = 2000;

/**
 * A collection that grows with use, kept in memory and persisted as a snapshot plus an
 * append-only journal (DESIGN §4): adding, changing or removing a record appends one line (group
 * committed, fdatasync'ed), so it costs the same at 10 records as at 100,000. Once the journal
 * holds more lines than the collection has records, a background compaction writes a new snapshot
 * (atomic rename) and cuts the journal down to the lines written meanwhile: the rewrite cost is
 * amortised to a constant per change. A crash at any point loses nothing acknowledged: replay
 * takes the snapshot, then every journal line with a higher sequence; a torn last line is a
 * change that was never acknowledged. Records keep their insertion order (a change keeps the place).
 */
export class JournalCollection<T, M extends object = Record<string, never>> implements Collection<T> {
  private readonly records = new Map<string, T>();
  private sequence = 0;
  private journalLines = 0;
  private compacting: Promise<void> | null = null;
  private closed = false;

  private constructor(
    private readonly snapshotPath: string,
    private readonly journal: JournalFile,
    private readonly options: CollectionOptions<T, M>,
    private currentMeta: M,
  ) {}

  static async open<T, M extends object = Record<string, never>>(folder: string, name: string, options: CollectionOptions<T, M>): Promise<JournalCollection<T, M>> {
    const collection = new JournalCollection<T, M>(path.join(folder, `${name}.json`), new JournalFile(path.join(folder, `${name}.jsonl`)), options, { ...options.meta });
    await collection.load();
    return collection;
  }

  private async load(): Promise<void> {
    let document: unknown = null;
    try {
      document = JSON.parse(await readFile(this.snapshotPath, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    let snapshotSeq = 0;
    if (document !== null && (document as Partial<Snapshot<T, M>>).format === 'igw-journal-snapshot') {
      const snapshot = document as Snapshot<T, M>;
      snapshotSeq = snapshot.journal_seq;
      this.currentMeta = { ...this.currentMeta, ...snapshot.meta };
      for (const record of snapshot.records) this.records.set(this.options.key(record), record);
    } else if (document !== null) {
      if (this.options.legacy === undefined) throw new Error(`${this.snapshotPath}: unknown format`);
      const legacy = this.options.legacy(document);
      this.currentMeta = { ...this.currentMeta, ...legacy.meta };
      for (const record of legacy.records) this.records.set(this.options.key(record), record);
    }
    this.sequence = snapshotSeq;
    for (const line of await this.journal.readLines()) {
      let entry: Entry<T, M>;
      try {
        entry = JSON.parse(line) as Entry<T, M>;
      } catch {
        continue; // only a crash mid-append tears a line, and readLines cut the last one off
      }
      this.journalLines += 1;
      if (entry.seq <= snapshotSeq) continue;
      this.sequence = Math.max(this.sequence, entry.seq);
      if ('put' in entry) this.records.set(this.options.key(entry.put), entry.put);
      else if ('del' in entry) this.records.delete(entry.del);
      else this.currentMeta = { ...this.currentMeta, ...entry.meta };
    }
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

  /** Records in insertion order (live: do not change the collection while iterating). */
  values(): IterableIterator<T> {
    return this.records.values();
  }

  /** Inserts or replaces records (the record as it is now is what gets written). */
  put(...records: T[]): Promise<void> {
    return this.write(records.map((record) => {
      this.records.set(this.options.key(record), record);
      return { seq: 0, put: record };
    }));
  }

  delete(...keys: string[]): Promise<void> {
    return this.write(keys.filter((key) => this.records.delete(key)).map((key) => ({ seq: 0, del: key })));
  }

  setMeta(change: Partial<M>): Promise<void> {
    this.currentMeta = { ...this.currentMeta, ...change };
    return this.write([{ seq: 0, meta: change }]);
  }

  private write(entries: Array<Entry<T, M>>): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error(`${this.snapshotPath}: collection is closed`));
    const written = Promise.all(
      entries.map((entry) => {
        this.sequence += 1;
        entry.seq = this.sequence;
        return this.journal.append(JSON.stringify(entry));
      }),
    );
    this.journalLines += entries.length;
    if (this.compacting === null && this.journalLines > Math.max(MIN_COMPACT_LINES, this.records.size)) {
      this.compacting = this.compact().finally(() => {
        this.compacting = null;
      });
      this.compacting.catch(() => undefined); // retried at the next trigger; the journal still holds everything
    }
    return written.then(() => undefined);
  }

  /** Writes a snapshot of everything now and drops the journal lines it covers. */
  private async compact(): Promise<void> {
    // Everything up to here goes into the snapshot; lines written from now on stay in the journal.
    this.journal.keepFrom();
    const linesBefore = this.journalLines;
    const snapshot: Snapshot<T, M> = { format: 'igw-journal-snapshot', journal_seq: this.sequence, meta: this.currentMeta, records: [...this.records.values()] };
    const text = JSON.stringify(snapshot);
    await writeFileAtomic(this.snapshotPath, text, `${process.pid}.tmp`);
    await this.journal.replaceWithTail();
    this.journalLines -= linesBefore;
  }

  /** Waits for a running compaction and the last writes; compacts once more if the journal is long. */
  async close(): Promise<void> {
    await this.compacting?.catch(() => undefined);
    if (!this.closed && this.journalLines >= MIN_COMPACT_LINES) await this.compact().catch(() => undefined);
    this.closed = true;
    await this.journal.close();
  }
}
