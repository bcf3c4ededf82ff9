import type { Low } from 'lowdb';
import { openCollection } from '../store/db.js';
import type { FileBatchRecord, VectorStoreFileRecord, VectorStoreRecord } from './records.js';

interface StoresDocument {
  vector_stores: VectorStoreRecord[];
}
interface FilesDocument {
  files: VectorStoreFileRecord[];
  seq: number;
}
interface BatchesDocument {
  file_batches: FileBatchRecord[];
}

/**
 * Vector store metadata in three lowdb collections (DESIGN §4: one JSON file per collection, so a
 * file status change never rewrites the store list). Chunks and indexes live under
 * `vector_stores/<id>/` (see store-data.ts). Reads are in memory; each change is one atomic write.
 */
export class VectorStoreRepository {
  /** store id → its files, in insertion order. */
  private filesByStore = new Map<string, VectorStoreFileRecord[]>();

  private constructor(
    private readonly stores: Low<StoresDocument>,
    private readonly files: Low<FilesDocument>,
    private readonly batches: Low<BatchesDocument>,
  ) {
    for (const file of files.data.files) this.indexFile(file);
  }

  static async open(dataDir: string): Promise<VectorStoreRepository> {
    return new VectorStoreRepository(
      await openCollection<StoresDocument>(dataDir, 'vector_stores', { vector_stores: [] }),
      await openCollection<FilesDocument>(dataDir, 'vector_store_files', { files: [], seq: 0 }),
      await openCollection<BatchesDocument>(dataDir, 'vector_store_file_batches', { file_batches: [] }),
    );
  }

  private indexFile(file: VectorStoreFileRecord): void {
    const list = this.filesByStore.get(file.vector_store_id);
    if (list === undefined) this.filesByStore.set(file.vector_store_id, [file]);
    else list.push(file);
  }

  // Stores

  allStores(): readonly VectorStoreRecord[] {
    return this.stores.data.vector_stores;
  }

  store(id: string): VectorStoreRecord | undefined {
    return this.stores.data.vector_stores.find((record) => record.id === id);
  }

  async insertStore(record: VectorStoreRecord): Promise<void> {
    this.stores.data.vector_stores.push(record);
    await this.stores.write();
  }

  async updateStore(record: VectorStoreRecord, change: Partial<VectorStoreRecord>): Promise<void> {
    Object.assign(record, change);
    await this.stores.write();
  }

  async deleteStore(id: string): Promise<void> {
    this.stores.data.vector_stores = this.stores.data.vector_stores.filter((record) => record.id !== id);
    const hadFiles = this.filesByStore.delete(id);
    const batchCount = this.batches.data.file_batches.length;
    this.batches.data.file_batches = this.batches.data.file_batches.filter((batch) => batch.vector_store_id !== id);
    await this.stores.write();
    if (hadFiles) {
      this.files.data.files = this.files.data.files.filter((file) => file.vector_store_id !== id);
      await this.files.write();
    }
    if (this.batches.data.file_batches.length !== batchCount) await this.batches.write();
  }

  // Files

  filesOf(storeId: string): readonly VectorStoreFileRecord[] {
    return this.filesByStore.get(storeId) ?? [];
  }

  file(storeId: string, fileId: string): VectorStoreFileRecord | undefined {
    return this.filesOf(storeId).find((file) => file.id === fileId);
  }

  allFiles(): readonly VectorStoreFileRecord[] {
    return this.files.data.files;
  }

  nextSeq(): number {
    this.files.data.seq += 1;
    return this.files.data.seq;
  }

  async insertFiles(records: VectorStoreFileRecord[]): Promise<void> {
    for (const record of records) {
      this.files.data.files.push(record);
      this.indexFile(record);
    }
    await this.files.write();
  }

  async updateFile(record: VectorStoreFileRecord, change: Partial<VectorStoreFileRecord>): Promise<void> {
    Object.assign(record, change);
    await this.files.write();
  }

  /** Several file changes, one write. */
  async updateFiles(changes: Array<[VectorStoreFileRecord, Partial<VectorStoreFileRecord>]>): Promise<void> {
    if (changes.length === 0) return;
    for (const [record, change] of changes) Object.assign(record, change);
    await this.files.write();
  }

  async deleteFile(record: VectorStoreFileRecord): Promise<void> {
    this.files.data.files = this.files.data.files.filter((file) => file !== record);
    const list = this.filesByStore.get(record.vector_store_id);
    if (list !== undefined) {
      const remaining = list.filter((file) => file !== record);
      if (remaining.length === 0) this.filesByStore.delete(record.vector_store_id);
      else this.filesByStore.set(record.vector_store_id, remaining);
    }
    await this.files.write();
  }

  async deleteFilesOf(storeId: string): Promise<void> {
    if (!this.filesByStore.delete(storeId)) return;
    this.files.data.files = this.files.data.files.filter((file) => file.vector_store_id !== storeId);
    await this.files.write();
  }

  // File batches

  batch(storeId: string, batchId: string): FileBatchRecord | undefined {
    return this.batches.data.file_batches.find((batch) => batch.id === batchId && batch.vector_store_id === storeId);
  }

  async insertBatch(record: FileBatchRecord): Promise<void> {
    this.batches.data.file_batches.push(record);
    await this.batches.write();
  }

  async updateBatch(record: FileBatchRecord, change: Partial<FileBatchRecord>): Promise<void> {
    Object.assign(record, change);
    await this.batches.write();
  }
}
