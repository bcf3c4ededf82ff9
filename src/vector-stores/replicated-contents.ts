import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../store/atomic-write.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { ChangeNotice, FileDataRow, FileDataWrite, VectorStoreFileData } from '../store/postgres/vs-file-data.js';
import type { Logger } from '../util/logger.js';
import type { CommitTurn } from './commit-turns.js';
import { processedBytes, type JobLease, type StoreContents } from './contents.js';
import type { LocalContents } from './local-contents.js';
import type { Sealer } from './sealer.js';
import { decodeVectors, encodeVectors, segmentAad, type StoreData, type StoredChunk } from './store-data.js';
import { decodeTextSegment, encodeTextSegment } from './text-segment.js';

/** Changed files read per round trip while catching up. */
const CATCH_UP_ROWS = 200;
/** The sequence number the store folder's index reflects (a start-up cache: catching up starts there). */
const APPLIED_FILE = 'feed-seq.json';

/** A file's chunks and vectors as its database row holds them: sealed under `sealer`, bound to the store and file as in the data dir. */
export function sealFileData(storeId: string, fileId: string, chunks: readonly StoredChunk[], vectors: readonly (readonly number[])[], sealer: Sealer): FileDataWrite {
  if (chunks.length !== vectors.length) throw new Error('one vector per chunk expected');
  const dimensions = vectors[0]?.length ?? null;
  return {
    id: fileId,
    chunkCount: chunks.length,
    usageBytes: processedBytes(chunks, vectors),
    dimensions,
    text: encodeTextSegment(chunks, sealer, segmentAad(storeId, fileId, 'text')),
    vectors: dimensions === null ? null : sealer.seal(encodeVectors(vectors, dimensions), segmentAad(storeId, fileId, 'vec')),
  };
}

interface Replica {
  /** The last sequence number applied to the local index. */
  applied: number;
  /** The catch-up running now, and whether another must follow it (a change arrived meanwhile). */
  running: Promise<void> | null;
  again: boolean;
}

/**
 * Store contents in PostgreSQL (team mode, issue 19 items 1–2). A file's chunk texts and vectors
 * are one row (sealed as in the data dir, under the same additional data), committed in one
 * transaction that takes the store's next sequence number and notifies every instance. Each
 * instance's StoreData (HNSW + lexical index, in its data dir) is a cache of those rows: opened
 * lazily per store, it catches up from the last sequence it applied (kept beside the index
 * snapshot) and then follows the feed; a notice ahead of what it applied, or a feed that was
 * down, makes it catch up again. A commit returns once this instance's own index has it.
 */
export class ReplicatedContents implements StoreContents {
  private readonly replicas = new Map<string, Promise<Replica>>();
  /** Stores dropped while this instance ran (ids are never reused): nothing may open their cache again. */
  private readonly removed = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly table: VectorStoreFileData,
    private readonly cache: LocalContents,
    private readonly sealer: Sealer,
    private readonly logger: Logger,
  ) {}

  async data(storeId: string): Promise<StoreData> {
    await this.replica(storeId);
    return this.cache.data(storeId);
  }

  private replica(storeId: string): Promise<Replica> {
    // A request or a catch-up that read the store before it was deleted must not recreate its folder.
    if (this.removed.has(storeId)) return Promise.reject(new GatewayError('RESOURCE_5420', `No vector store with id "${storeId}".`));
    let opening = this.replicas.get(storeId);
    if (opening === undefined) {
      opening = this.openReplica(storeId);
      this.replicas.set(storeId, opening);
      opening.catch(() => this.replicas.delete(storeId));
    }
    return opening;
  }

  private async openReplica(storeId: string): Promise<Replica> {
    await this.cache.data(storeId);
    let applied = 0;
    try {
      applied = (JSON.parse(await readFile(this.appliedPath(storeId), 'utf8')) as { seq: number }).seq;
    } catch {
      applied = 0; // a fresh cache: everything is read from the database
    }
    const replica: Replica = { applied, running: null, again: false };
    await this.runCatchUp(storeId, replica);
    return replica;
  }

  private appliedPath(storeId: string): string {
    return path.join(this.cache.folderOf(storeId), APPLIED_FILE);
  }

  /** A notice from the feed: catch up when it is ahead of this instance's index (stores not opened here are read when first used). */
  onNotice(notice: ChangeNotice): void {
    if (notice.seq === null) {
      void this.dropLocal(notice.store_id).catch((error: unknown) => this.logger.warn('vector store cache: could not drop a removed store', { vector_store_id: notice.store_id, error: String(error) }));
      return;
    }
    const opening = this.replicas.get(notice.store_id);
    if (opening === undefined) return;
    void opening
      .then((replica) => (notice.seq! > replica.applied && this.replicas.get(notice.store_id) === opening ? this.catchUp(notice.store_id, replica) : undefined))
      .catch((error: unknown) => this.logger.warn('vector store cache: catching up failed; retried at the next change', { vector_store_id: notice.store_id, error: String(error) }));
  }

  /** The feed was down: changes may have been missed; every open store catches up. */
  async resync(): Promise<void> {
    for (const [storeId, opening] of this.replicas) await this.catchUp(storeId, await opening);
  }

  /** Catches up (once more if one is running: a change may have arrived after it read). */
  private catchUp(storeId: string, replica: Replica): Promise<void> {
    if (replica.running !== null) {
      replica.again = true;
      return replica.running;
    }
    const run = (async () => {
      try {
        do {
          replica.again = false;
          await this.runCatchUp(storeId, replica);
        } while (replica.again && !this.closed);
      } finally {
        replica.running = null;
      }
    })();
    replica.running = run;
    return run;
  }

  private async runCatchUp(storeId: string, replica: Replica): Promise<void> {
    const data = await this.cache.data(storeId);
    while (!this.removed.has(storeId)) {
      const rows = await this.table.changesSince(storeId, replica.applied, CATCH_UP_ROWS);
      for (const row of rows) {
        await this.apply(storeId, data, row);
        replica.applied = row.seq;
      }
      if (rows.length > 0) await writeFileAtomic(this.appliedPath(storeId), JSON.stringify({ seq: replica.applied }));
      if (rows.length < CATCH_UP_ROWS) return;
    }
  }

  private async apply(storeId: string, data: StoreData, row: FileDataRow): Promise<void> {
    if (row.removed || row.text_sealed === null) {
      await data.removeFile(row.file_id);
      return;
    }
    const chunks = decodeTextSegment(row.text_sealed, this.sealer, segmentAad(storeId, row.file_id, 'text'));
    let vectors: number[][] = [];
    if (row.vectors_sealed !== null && row.chunk_count > 0) {
      const plain = this.sealer.unseal(row.vectors_sealed, segmentAad(storeId, row.file_id, 'vec'));
      vectors = decodeVectors(plain, plain.byteLength / 4 / row.chunk_count);
    }
    await data.commitFile(row.file_id, chunks, vectors);
  }

  async commit(storeId: string, fileId: string, chunks: readonly StoredChunk[], vectors: readonly (readonly number[])[], options: { turn?: CommitTurn; lease?: JobLease } = {}): Promise<number> {
    const row = sealFileData(storeId, fileId, chunks, vectors, this.sealer);
    // Commits of one store take their sequence numbers in the order their ingestion started (commit-turns.ts).
    await options.turn?.ready;
    try {
      await this.table.commit(storeId, row, options.lease);
    } finally {
      options.turn?.done();
    }
    const replica = await this.replica(storeId);
    await this.catchUp(storeId, replica);
    return row.usageBytes;
  }

  async remove(storeId: string, fileId: string): Promise<void> {
    await this.table.remove(storeId, fileId);
    await this.catchUp(storeId, await this.replica(storeId));
  }

  async drop(storeId: string): Promise<void> {
    await this.table.dropStore(storeId);
    await this.dropLocal(storeId);
  }

  /** Drops this instance's cache of a store, once (the drop's own notice comes back here too). */
  private dropLocal(storeId: string): Promise<void> {
    let dropping = this.removed.get(storeId);
    if (dropping === undefined) {
      dropping = this.dropCache(storeId);
      this.removed.set(storeId, dropping);
    }
    return dropping;
  }

  private async dropCache(storeId: string): Promise<void> {
    const opening = this.replicas.get(storeId);
    this.replicas.delete(storeId);
    const replica = await opening?.catch(() => null);
    await replica?.running?.catch(() => undefined);
    await this.cache.drop(storeId);
  }

  committedFiles(storeId: string): Promise<Set<string>> {
    return this.table.committedFiles(storeId);
  }

  isCommitted(storeId: string, fileId: string): Promise<boolean> {
    return this.table.isCommitted(storeId, fileId);
  }

  usageBytes(storeId: string, fileId: string): Promise<number> {
    return this.table.usageBytes(storeId, fileId);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const opening of this.replicas.values()) await (await opening.catch(() => null))?.running?.catch(() => undefined);
    await this.cache.close();
  }
}
