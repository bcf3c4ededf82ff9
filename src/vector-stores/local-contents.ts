import { randomUUID } from 'node:crypto';
import { readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { GatewayError } from '../errors/gateway-error.js';
import type { CommitTurn } from './commit-turns.js';
import type { StoreContents } from './contents.js';
import type { Sealer } from './sealer.js';
import { StoreData, type StoredChunk } from './store-data.js';

/** Prefix of a removed store's folder until it is gone (never a UUID, so never a store's folder). */
const REMOVED_PREFIX = '.removed-';

/** `vector_stores/<id>/` under `folder`; ids are UUIDs igw generated, so they are safe as names. */
export function storeFolderIn(folder: string): (storeId: string) => string {
  return (storeId) => {
    if (!/^[0-9a-f-]{36}$/.test(storeId)) throw new Error(`not a vector store id: ${storeId}`);
    return path.join(folder, storeId);
  };
}

/**
 * Store contents in the data dir (the JSON store, DESIGN §4): each store's folder holds its
 * sealed segments, manifest and index snapshots (store-data.ts) and is the truth.
 */
export class LocalContents implements StoreContents {
  private readonly loaded = new Map<string, Promise<StoreData>>();
  /** Stores dropped in this process (ids are never reused): a request that read one before it went must not recreate its folder. */
  private readonly removed = new Set<string>();
  readonly folderOf: (storeId: string) => string;

  constructor(
    private readonly folder: string,
    private readonly sealer: Sealer,
  ) {
    this.folderOf = storeFolderIn(folder);
  }

  /** Finishes removals a stop interrupted (folders renamed by drop() and not yet deleted). */
  async sweepRemoved(): Promise<void> {
    for (const name of await readdir(this.folder)) {
      if (name.startsWith(REMOVED_PREFIX)) await rm(path.join(this.folder, name), { recursive: true, force: true, maxRetries: 3 });
    }
  }

  data(storeId: string): Promise<StoreData> {
    if (this.removed.has(storeId)) return Promise.reject(new GatewayError('RESOURCE_5420', `No vector store with id "${storeId}".`));
    let loading = this.loaded.get(storeId);
    if (loading === undefined) {
      loading = StoreData.open(storeId, this.folderOf(storeId), this.sealer);
      this.loaded.set(storeId, loading);
      loading.catch(() => this.loaded.delete(storeId));
    }
    return loading;
  }

  /** Whether the store's data is open in this process. */
  isOpen(storeId: string): boolean {
    return this.loaded.has(storeId);
  }

  async commit(storeId: string, fileId: string, chunks: readonly StoredChunk[], vectors: readonly (readonly number[])[], options: { turn?: CommitTurn } = {}): Promise<number> {
    const data = await this.data(storeId);
    await data.commitFile(fileId, chunks, vectors, options.turn);
    return data.usageBytes(fileId);
  }

  async remove(storeId: string, fileId: string): Promise<void> {
    await (await this.data(storeId)).removeFile(fileId);
  }

  async drop(storeId: string): Promise<void> {
    this.removed.add(storeId);
    const loading = this.loaded.get(storeId);
    this.loaded.delete(storeId);
    if (loading !== undefined) await (await loading.catch(() => null))?.close().catch(() => undefined);
    // Renamed first: a write still finishing by path (a snapshot, a source blob, a replica's
    // sequence file) then fails on the missing folder instead of adding a file to what rm is
    // deleting, which made rm fail with ENOTEMPTY and the DELETE answer 500 (found by the fuzz).
    const removed = path.join(this.folder, `${REMOVED_PREFIX}${storeId}-${randomUUID()}`);
    try {
      await rename(this.folderOf(storeId), removed);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    await rm(removed, { recursive: true, force: true, maxRetries: 3 });
  }

  committedFiles(storeId: string): Promise<Set<string>> {
    return StoreData.committedFiles(this.folderOf(storeId));
  }

  async isCommitted(storeId: string, fileId: string): Promise<boolean> {
    return (await this.data(storeId)).hasFile(fileId);
  }

  async usageBytes(storeId: string, fileId: string): Promise<number> {
    return (await this.data(storeId)).usageBytes(fileId);
  }

  async close(): Promise<void> {
    for (const [storeId, store] of this.loaded) {
      this.loaded.delete(storeId);
      await (await store).close().catch(() => undefined);
    }
  }
}
