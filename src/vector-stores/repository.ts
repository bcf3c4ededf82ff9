import type { Collection } from '../store/collection.js';
import { DocumentCollection } from '../store/document-collection.js';
import { JournalCollection } from '../store/journal-collection.js';
import type { FileBatchRecord, VectorStoreFileRecord, VectorStoreRecord } from './records.js';
import type { StoreSummary } from './wire.js';

/** A file record's key in its collection: store id (a UUID, no slash) and file id. */
export function fileKey(file: { vector_store_id: string; id: string }): string {
  return `${file.vector_store_id}/${file.id}`;
}

/** Versions of the file maps, unique across repositories in the process (a memo stamped with one is never taken for another's). */
let lastFilesVersion = 0;

/**
 * Vector store metadata (DESIGN §4). The store list is one small document (it grows only
 * when someone creates a store); the collections that grow with use, files and file batches, are
 * journalled (src/store/journal-collection): attaching a file or changing its status appends one
 * line, whatever the number of files. Chunks and indexes live under `vector_stores/<id>/`
 * (store-data.ts). Reads are in memory and by key.
 */
export class VectorStoreRepository {
  /** store id → its files by file id, in insertion order. */
  private filesByStore = new Map<string, Map<string, VectorStoreFileRecord>>();
  private summaries = new Map<string, StoreSummary>();
  private sequence = 0;
  /**
   * Changes whenever a file record is added to or removed from any store's map (a record's fields
   * change in place, on the object handed out): a record memo stamped with it (search.ts, via
   * label-table.ts) holds as long as it is the current one.
   */
  filesVersion = ++lastFilesVersion;

  private constructor(
    private readonly stores: Collection<VectorStoreRecord>,
    private readonly files: Collection<VectorStoreFileRecord>,
    private readonly batches: Collection<FileBatchRecord>,
  ) {
    for (const file of files.values()) {
      this.indexFile(file);
      this.sequence = Math.max(this.sequence, file.seq);
    }
    for (const batch of batches.values()) this.sequence = Math.max(this.sequence, batch.seq);
  }

  /** Over given collections (team mode: tables in PostgreSQL, see vs-record-collection.ts). */
  static over(stores: Collection<VectorStoreRecord>, files: Collection<VectorStoreFileRecord>, batches: Collection<FileBatchRecord>): VectorStoreRepository {
    return new VectorStoreRepository(stores, files, batches);
  }

  /** In the data dir: the JSON store's files (DESIGN §4). */
  static async open(dataDir: string): Promise<VectorStoreRepository> {
    return new VectorStoreRepository(
      await DocumentCollection.open<VectorStoreRecord>(dataDir, 'vector_stores', { key: (store) => store.id, field: 'vector_stores' }),
      await JournalCollection.open<VectorStoreFileRecord>(dataDir, 'vector_store_files', {
        key: fileKey,
        meta: {},
        legacy: (document) => ({ records: (document as { files?: VectorStoreFileRecord[] }).files ?? [] }),
      }),
      await JournalCollection.open<FileBatchRecord>(dataDir, 'vector_store_file_batches', {
        key: (batch) => batch.id,
        meta: {},
        legacy: (document) => ({ records: (document as { file_batches?: FileBatchRecord[] }).file_batches ?? [] }),
      }),
    );
  }

  /** Writes what is queued and compacts long journals (shutdown). */
  async close(): Promise<void> {
    await this.stores.close();
    await this.files.close();
    await this.batches.close();
  }

  private summaryOf(storeId: string): StoreSummary {
    let summary = this.summaries.get(storeId);
    if (summary === undefined) {
      summary = { counts: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 }, usage_bytes: 0 };
      this.summaries.set(storeId, summary);
    }
    return summary;
  }

  private count(file: VectorStoreFileRecord, sign: 1 | -1): void {
    const summary = this.summaryOf(file.vector_store_id);
    summary.counts[file.status] += sign;
    summary.counts.total += sign;
    summary.usage_bytes += sign * file.usage_bytes;
  }

  private indexFile(file: VectorStoreFileRecord): void {
    let files = this.filesByStore.get(file.vector_store_id);
    if (files === undefined) {
      files = new Map();
      this.filesByStore.set(file.vector_store_id, files);
    }
    files.set(file.id, file);
    this.filesVersion = ++lastFilesVersion;
    this.count(file, 1);
  }

  /**
   * Another instance changed a file record (team mode; `record` undefined: removed it). The
   * record this repository hands out is updated in place — an ingestion or request holding it
   * sees the change — and the per-store index and counts follow, so every instance reports the
   * same `file_counts`.
   */
  remoteFileChange(key: string, record: VectorStoreFileRecord | undefined): void {
    const slash = key.indexOf('/');
    const storeId = key.slice(0, slash);
    const files = this.filesByStore.get(storeId);
    const held = files?.get(key.slice(slash + 1));
    if (held !== undefined) {
      this.count(held, -1);
      if (record === undefined) {
        files!.delete(held.id);
        this.filesVersion = ++lastFilesVersion;
        if (files!.size === 0) this.filesByStore.delete(storeId);
        return;
      }
      Object.assign(held, record);
      this.count(held, 1);
    } else if (record !== undefined) {
      this.indexFile(record);
    }
    if (record !== undefined) this.sequence = Math.max(this.sequence, record.seq);
  }

  /** Another instance created a file batch: its sequence number is taken into account. */
  remoteBatchChange(after: FileBatchRecord | undefined): void {
    if (after !== undefined) this.sequence = Math.max(this.sequence, after.seq);
  }

  // Stores

  /** Every store, oldest first (a copy). */
  allStores(): readonly VectorStoreRecord[] {
    return [...this.stores.values()];
  }

  store(id: string): VectorStoreRecord | undefined {
    return this.stores.get(id);
  }

  async insertStore(record: VectorStoreRecord): Promise<void> {
    await this.stores.put(record);
  }

  async updateStore(record: VectorStoreRecord, change: Partial<VectorStoreRecord>): Promise<void> {
    Object.assign(record, change);
    // A store deleted meanwhile stays deleted. In team mode another instance's change may have
    // replaced the cached record: the change goes onto that one, keeping the other's fields.
    const current = this.stores.get(record.id);
    if (current === undefined) return;
    if (current !== record) Object.assign(current, change);
    await this.stores.put(current);
  }

  async deleteStore(id: string): Promise<void> {
    await this.stores.delete(id);
    await this.deleteFilesOf(id);
    await this.batches.delete(...this.batchesOf(id).map((batch) => batch.id));
  }

  // Files

  /** A store's files, oldest first (a copy: O(files), for lists and whole-store work). */
  filesOf(storeId: string): readonly VectorStoreFileRecord[] {
    return [...(this.filesByStore.get(storeId)?.values() ?? [])];
  }

  /** File counts and processed bytes of a store, without a scan. */
  summary(storeId: string): Readonly<StoreSummary> {
    return this.summaryOf(storeId);
  }

  file(storeId: string, fileId: string): VectorStoreFileRecord | undefined {
    return this.filesByStore.get(storeId)?.get(fileId);
  }

  allFiles(): IterableIterator<VectorStoreFileRecord> {
    return this.files.values();
  }

  nextSeq(): number {
    this.sequence += 1;
    return this.sequence;
  }

  async insertFiles(records: VectorStoreFileRecord[]): Promise<void> {
    for (const record of records) this.indexFile(record);
    await this.files.put(...records);
  }

  async updateFile(record: VectorStoreFileRecord, change: Partial<VectorStoreFileRecord>): Promise<void> {
    await this.updateFiles([[record, change]]);
  }

  /** Several file changes, one group of journal lines. */
  async updateFiles(changes: Array<[VectorStoreFileRecord, Partial<VectorStoreFileRecord>]>): Promise<void> {
    if (changes.length === 0) return;
    const live: VectorStoreFileRecord[] = [];
    for (const [record, change] of changes) {
      const indexed = this.file(record.vector_store_id, record.id) === record;
      if (indexed) this.count(record, -1);
      Object.assign(record, change);
      if (indexed) {
        this.count(record, 1);
        live.push(record);
      }
    }
    await this.files.put(...live);
  }

  async deleteFile(record: VectorStoreFileRecord): Promise<void> {
    const files = this.filesByStore.get(record.vector_store_id);
    if (files?.get(record.id) !== record) return;
    files.delete(record.id);
    this.filesVersion = ++lastFilesVersion;
    this.count(record, -1);
    if (files.size === 0) this.filesByStore.delete(record.vector_store_id);
    await this.files.delete(fileKey(record));
  }

  async deleteFilesOf(storeId: string): Promise<void> {
    const files = this.filesByStore.get(storeId);
    this.filesByStore.delete(storeId);
    this.filesVersion = ++lastFilesVersion;
    this.summaries.delete(storeId);
    if (files === undefined) return;
    await this.files.delete(...[...files.keys()].map((fileId) => fileKey({ vector_store_id: storeId, id: fileId })));
  }

  // File batches

  batch(storeId: string, batchId: string): FileBatchRecord | undefined {
    const batch = this.batches.get(batchId);
    return batch?.vector_store_id === storeId ? batch : undefined;
  }

  /** A store's file batches (a scan: for whole-store work such as `igw migrate`). */
  batchesOf(storeId: string): FileBatchRecord[] {
    return [...this.batches.values()].filter((batch) => batch.vector_store_id === storeId);
  }

  async insertBatch(record: FileBatchRecord): Promise<void> {
    await this.batches.put(record);
  }

  async updateBatch(record: FileBatchRecord, change: Partial<FileBatchRecord>): Promise<void> {
    Object.assign(record, change);
    await this.batches.put(record);
  }
}
