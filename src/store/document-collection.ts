import type { Collection } from './collection.js';
import { JsonDocument } from './json-document.js';

export interface DocumentCollectionOptions<T> {
  /** The record's key, unique in the collection. */
  key: (record: T) => string;
  /** The document's array of records: `{ "<field>": [ … ] }` (other fields of the document are kept). */
  field: string;
}

/**
 * A collection kept as one JSON document, `<folder>/<name>.json` = `{ "<field>": [records] }`,
 * rewritten whole and atomically on every change (DESIGN §4: one document per collection, so a
 * write never rewrites unrelated collections). For collections that stay small: stores, keys,
 * batches. The file format is the one data dirs already hold.
 */
export class DocumentCollection<T> implements Collection<T> {
  private readonly records = new Map<string, T>();
  private closed = false;
  private lastWrite: Promise<void> = Promise.resolve();

  private constructor(
    private readonly document: JsonDocument<Record<string, unknown>>,
    private readonly options: DocumentCollectionOptions<T>,
  ) {
    const stored = document.value[options.field];
    for (const record of Array.isArray(stored) ? (stored as T[]) : []) this.records.set(options.key(record), record);
  }

  static async open<T>(folder: string, name: string, options: DocumentCollectionOptions<T>): Promise<DocumentCollection<T>> {
    return new DocumentCollection<T>(await JsonDocument.open<Record<string, unknown>>(folder, name, { [options.field]: [] }), options);
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

  put(...records: T[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    for (const record of records) this.records.set(this.options.key(record), record);
    return this.write();
  }

  delete(...keys: string[]): Promise<void> {
    const removed = keys.filter((key) => this.records.delete(key));
    return removed.length === 0 ? Promise.resolve() : this.write();
  }

  /** Writes are serialised (JsonDocument), so the last change made is the last one on disk. */
  private write(): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`collection ${this.options.field} is closed`));
    this.document.value[this.options.field] = [...this.records.values()];
    const written = this.document.write();
    this.lastWrite = written.catch(() => undefined);
    return written;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.lastWrite;
  }
}
