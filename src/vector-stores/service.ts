import type { TaskBoard } from '../app/activity.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Clock } from '../util/clock.js';
import type { IdGenerator } from '../util/ids.js';
import type { Logger } from '../util/logger.js';
import type { Attributes } from './filters.js';
import type { VectorStoreBacking } from './backing.js';
import { CommitTurns } from './commit-turns.js';
import type { StoreContents } from './contents.js';
import { ingestFile, type IngestContext } from './ingest-file.js';
import type { VectorStorePorts } from './ingest-ports.js';
import type { IngestJob, IngestJobs } from './ingest-queue.js';
import type { ExpiresAfter, FileBatchRecord, FileSource, StaticChunking, StoreChunking, VectorStoreFileRecord, VectorStoreRecord } from './records.js';
import type { VectorStoreRepository } from './repository.js';
import type { SourceBlobs } from './source-blobs.js';
import type { StoreData, StoredChunk } from './store-data.js';
import { expiresAt, renderBatch, renderFile, renderStore } from './wire.js';

/** Activity is recorded in memory at once, on disk at most this often per store (no per-search rewrite). */
const ACTIVITY_WRITE_SECONDS = 60;
const EXPIRY_SWEEP_MS = 60_000;
/** How long a claimed job waits for its file's record to reach this instance (team mode; milliseconds in practice). */
const RECORD_WAIT_MS = 3000;
/**
 * Files ingested at once. An ingestion mostly waits (file read, embedding call, fsyncs), so a
 * few more than the cores keep the CPU busy; the store's commit step is serialised anyway.
 */
const INGEST_CONCURRENCY = 8;

export interface NewStore {
  name: string;
  metadata: Record<string, string>;
  expires_after: ExpiresAfter | null;
  chunking_strategy: StoreChunking | null;
  embedding_model: string;
}

export interface NewFile {
  id: string;
  filename: string;
  source: FileSource;
  attributes: Attributes;
  chunking_strategy: StaticChunking;
  /** Bytes of a text source, sealed into the store folder until ingested. */
  bytes?: Buffer;
  /** The key of the request that adds it (usage attribution of its ingestion). */
  key_id?: string | null;
}

/**
 * Managed vector stores (spec "Vector stores", DESIGN §4–§5): records, per-store data, the
 * ingestion queue (resumed at start-up) and expiry. Endpoints and `searchVectorStores` use it.
 */
export class VectorStoreService {
  private queue: IngestJobs | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  readonly repository: VectorStoreRepository;
  private readonly contents: StoreContents;
  private readonly sources: SourceBlobs;
  private readonly persistedActivity = new Map<string, number>();
  private readonly commitTurns = new CommitTurns();
  private readonly sizeListeners = new Set<(storeId: string) => void>();

  private constructor(
    private readonly backing: VectorStoreBacking,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly logger: Logger,
  ) {
    this.repository = backing.repository;
    this.contents = backing.contents;
    this.sources = backing.sources;
  }

  /** Over the backing the composition root chose (backing.ts: the data dir; team-backing.ts: PostgreSQL). */
  static open(options: { backing: VectorStoreBacking; clock: Clock; ids: IdGenerator; logger: Logger }): VectorStoreService {
    return new VectorStoreService(options.backing, options.clock, options.ids, options.logger);
  }

  private now(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  /**
   * Starts ingestion: files left `in_progress` by a previous process are reconciled (already
   * committed → completed) or queued again, and the expiry sweep begins.
   */
  async start(ports: VectorStorePorts): Promise<void> {
    const context: IngestContext = { embed: ports.embed, files: ports.files, tools: ports.tools, repository: this.repository, sources: this.sources, contents: this.contents, logger: this.logger };
    const worker = async (job: IngestJob, signal: AbortSignal) => {
      if (job.lease !== undefined) await this.recordArrives(job, signal);
      await this.ingestTracked(context, ports.tasks, job, signal);
    };
    this.queue = this.backing.jobs(worker, INGEST_CONCURRENCY, (job, error) => {
      this.logger.error('vector store ingestion crashed', { vector_store_id: job.storeId, file_id: job.fileId, error: String(error) });
    });
    await this.sweepExpired();
    const pending = [...this.repository.allFiles()].filter((file) => file.status === 'in_progress');
    if (!this.backing.resumesLocally) {
      // Team mode: jobs are rows; one lost between a file's record and its job row is queued again (a queued one stays as it is).
      await this.queue.enqueue(...pending.map((file) => ({ storeId: file.vector_store_id, fileId: file.id })));
      pending.length = 0;
    }
    const committedByStore = new Map<string, Set<string>>();
    const completed: Array<[VectorStoreFileRecord, Partial<VectorStoreFileRecord>]> = [];
    for (const file of pending) {
      let committed = committedByStore.get(file.vector_store_id);
      if (committed === undefined) {
        committed = await this.contents.committedFiles(file.vector_store_id);
        committedByStore.set(file.vector_store_id, committed);
      }
      if (committed.has(file.id)) {
        // Committed just before the crash, record not yet updated: the data is all there.
        completed.push([file, { status: 'completed', last_error: null, usage_bytes: await this.contents.usageBytes(file.vector_store_id, file.id) }]);
      } else {
        await this.queue.enqueue({ storeId: file.vector_store_id, fileId: file.id });
      }
    }
    await this.repository.updateFiles(completed);
    for (const storeId of new Set(completed.map(([file]) => file.vector_store_id))) this.sizeChanged(storeId);
    this.sweepTimer = setInterval(() => void this.sweepExpired().catch((error: unknown) => this.logger.error('vector store expiry sweep failed', { error: String(error) })), EXPIRY_SWEEP_MS);
    this.sweepTimer.unref();
  }

  /**
   * Tells `listener` (storage billing) that a store's processed size may have changed: a file
   * finished ingesting, was detached, or the store was deleted or expired. Returns an unsubscribe.
   */
  onSizeChange(listener: (storeId: string) => void): () => void {
    this.sizeListeners.add(listener);
    return () => this.sizeListeners.delete(listener);
  }

  private sizeChanged(storeId: string): void {
    for (const listener of this.sizeListeners) listener(storeId);
  }

  /** Ingestion jobs by state (/metrics `igw_ingestion_jobs`; team mode: every instance's). */
  jobCounts(): Promise<Record<string, number>> {
    return this.queue?.countByState() ?? Promise.resolve({});
  }

  /** Resolves when no ingestion waits or runs. */
  idle(): Promise<void> {
    return this.queue?.idle() ?? Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.sweepTimer !== null) clearInterval(this.sweepTimer);
    await this.queue?.close();
    await this.contents.close();
    for (const store of this.repository.allStores()) await this.persistActivity(store, true);
    await this.repository.close();
    await this.backing.close();
  }

  /** One ingestion, shown on the `igw serve` dashboard while it runs and with its outcome after. */
  private async ingestTracked(context: IngestContext, tasks: TaskBoard, job: IngestJob, signal: AbortSignal): Promise<void> {
    const file = this.repository.file(job.storeId, job.fileId);
    const task = tasks.startTask('ingestion', job.fileId, `${file?.filename ?? job.fileId} → ${this.repository.store(job.storeId)?.name || job.storeId}`, { total: 1 });
    // Taken before the first await: turns follow the order in which the queue starts jobs.
    const turn = this.commitTurns.take(job.storeId);
    try {
      if (file?.status === 'in_progress' && (await this.committedBefore(job))) {
        // Its instance died after committing, before the status was saved (team mode): the data is all there.
        turn.done();
        await this.repository.updateFile(file, { status: 'completed', last_error: null, usage_bytes: await this.contents.usageBytes(job.storeId, job.fileId) });
      } else {
        await ingestFile(context, job, signal, turn);
      }
    } finally {
      turn.done();
      this.sizeChanged(job.storeId);
      const status = this.repository.file(job.storeId, job.fileId)?.status;
      if (status === 'completed') task.end('completed');
      else if (status === 'failed') task.end('failed', this.repository.file(job.storeId, job.fileId)?.last_error?.message);
      else task.end('cancelled', signal.aborted ? 'stopped; resumes at the next start' : undefined);
    }
  }

  /**
   * A job claimed from the table may name a file whose record this instance has not received yet
   * (the job's notice can overtake the record's, or the store's): wait for them a little. A record that never
   * comes was removed, and the job ends with nothing to do.
   */
  private async recordArrives(job: IngestJob, signal: AbortSignal): Promise<void> {
    const until = Date.now() + RECORD_WAIT_MS;
    while ((this.repository.file(job.storeId, job.fileId) === undefined || this.repository.store(job.storeId) === undefined) && Date.now() < until && !signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** A leased job whose file's chunks are already committed (only a job taken over from a dead instance can be). */
  private async committedBefore(job: IngestJob): Promise<boolean> {
    return job.lease !== undefined && (await this.contents.isCommitted(job.storeId, job.fileId));
  }

  /** The store's chunks and index, opened on first use. */
  data(storeId: string): Promise<StoreData> {
    return this.contents.data(storeId);
  }

  private dropData(storeId: string): Promise<void> {
    return this.contents.drop(storeId);
  }

  // Stores

  async createStore(accountId: string, input: NewStore): Promise<VectorStoreRecord> {
    const now = this.now();
    const record: VectorStoreRecord = {
      id: this.ids.uuid(),
      account: accountId,
      name: input.name,
      created_at: now,
      embedding_model: input.embedding_model,
      chunking_strategy: input.chunking_strategy,
      expires_after: input.expires_after,
      last_active_at: now,
      metadata: input.metadata,
      expired_at: null,
    };
    await this.repository.insertStore(record);
    this.persistedActivity.set(record.id, now);
    return record;
  }

  /** The account's store, or 404 (another account's store does not exist for this key). Expires it when due. */
  async requireStore(accountId: string, storeId: string): Promise<VectorStoreRecord> {
    const store = this.repository.store(storeId);
    if (store === undefined || store.account !== accountId) throw new GatewayError('RESOURCE_5420', `No vector store with id "${storeId}".`, { field: 'vector_store_id' });
    await this.expireIfDue(store);
    return store;
  }

  /** Like requireStore, but refuses an expired store (its data is gone). */
  async requireActiveStore(accountId: string, storeId: string): Promise<VectorStoreRecord> {
    const store = await this.requireStore(accountId, storeId);
    if (store.expired_at !== null) throw new GatewayError('VALIDATION_4005', `Vector store "${storeId}" has expired; its data was removed. Create a new store.`, { field: 'vector_store_id' });
    return store;
  }

  async listStores(accountId: string): Promise<VectorStoreRecord[]> {
    const stores = this.repository.allStores().filter((store) => store.account === accountId);
    for (const store of stores) await this.expireIfDue(store);
    return stores;
  }

  async updateStore(store: VectorStoreRecord, change: { name?: string; metadata?: Record<string, string>; expires_after?: ExpiresAfter | null }): Promise<void> {
    const now = this.now();
    await this.repository.updateStore(store, { ...change, last_active_at: now });
    this.persistedActivity.set(store.id, now);
  }

  async deleteStore(store: VectorStoreRecord): Promise<void> {
    for (const file of this.repository.filesOf(store.id)) await this.queue?.cancel({ storeId: store.id, fileId: file.id });
    await this.repository.deleteStore(store.id);
    await this.dropData(store.id);
    this.sizeChanged(store.id);
  }

  render(store: VectorStoreRecord) {
    return renderStore(store, this.repository.summary(store.id));
  }

  /** Marks the store used now (search, attach): moves its expiry. */
  async touch(store: VectorStoreRecord): Promise<void> {
    store.last_active_at = this.now();
    await this.persistActivity(store, false);
  }

  private async persistActivity(store: VectorStoreRecord, force: boolean): Promise<void> {
    const persisted = this.persistedActivity.get(store.id) ?? 0;
    if (store.last_active_at === persisted) return;
    if (!force && store.last_active_at - persisted < ACTIVITY_WRITE_SECONDS) return;
    this.persistedActivity.set(store.id, store.last_active_at);
    if (this.repository.store(store.id) !== undefined) await this.repository.updateStore(store, {});
  }

  private async expireIfDue(store: VectorStoreRecord): Promise<void> {
    if (store.expired_at !== null) return;
    const due = expiresAt(store);
    if (due === null || this.now() < due) return;
    for (const file of this.repository.filesOf(store.id)) await this.queue?.cancel({ storeId: store.id, fileId: file.id });
    await this.repository.updateStore(store, { expired_at: due });
    await this.repository.deleteFilesOf(store.id);
    await this.dropData(store.id);
    this.sizeChanged(store.id);
    this.logger.info('vector store expired', { vector_store_id: store.id });
  }

  private async sweepExpired(): Promise<void> {
    for (const store of [...this.repository.allStores()]) await this.expireIfDue(store);
  }

  // Files

  /**
   * Adds files and queues their ingestion. The same id again is idempotent: the existing file is
   * returned (and ingested again if it had failed or was cancelled).
   */
  async addFiles(store: VectorStoreRecord, files: NewFile[], batchId: string | null = null): Promise<VectorStoreFileRecord[]> {
    const now = this.now();
    const records: VectorStoreFileRecord[] = [];
    const created: VectorStoreFileRecord[] = [];
    const retried: Array<[VectorStoreFileRecord, Partial<VectorStoreFileRecord>]> = [];
    for (const file of files) {
      const existing = this.repository.file(store.id, file.id) ?? created.find((record) => record.id === file.id);
      if (existing !== undefined) {
        if (existing.status === 'failed' || existing.status === 'cancelled') {
          retried.push([existing, { status: 'in_progress', last_error: null, attributes: file.attributes, chunking_strategy: file.chunking_strategy, key_id: file.key_id ?? null, ...(batchId === null ? {} : { batch_id: batchId }) }]);
        }
        records.push(existing);
        continue;
      }
      if (file.bytes !== undefined) await this.sources.write(store.id, file.id, file.bytes);
      const record: VectorStoreFileRecord = {
        id: file.id,
        vector_store_id: store.id,
        account: store.account,
        filename: file.filename,
        created_at: now,
        seq: this.repository.nextSeq(),
        status: 'in_progress',
        last_error: null,
        attributes: file.attributes,
        chunking_strategy: file.chunking_strategy,
        usage_bytes: 0,
        source: file.source,
        batch_id: batchId,
        key_id: file.key_id ?? null,
      };
      created.push(record);
      records.push(record);
    }
    await this.repository.insertFiles(created);
    await this.repository.updateFiles(retried);
    await this.touch(store);
    await this.queue?.enqueue(...[...created, ...retried.map(([record]) => record)].map((record) => ({ storeId: store.id, fileId: record.id })));
    return records;
  }

  requireFile(store: VectorStoreRecord, fileId: string): VectorStoreFileRecord {
    const file = this.repository.file(store.id, fileId);
    if (file === undefined) throw new GatewayError('RESOURCE_5421', `No file "${fileId}" in vector store "${store.id}".`, { field: 'file_id' });
    return file;
  }

  filesOf(store: VectorStoreRecord): readonly VectorStoreFileRecord[] {
    return this.repository.filesOf(store.id);
  }

  async updateAttributes(file: VectorStoreFileRecord, attributes: Attributes): Promise<void> {
    await this.repository.updateFile(file, { attributes });
  }

  /** Detaches a file: its ingestion stops, its chunks leave the index. */
  async deleteFile(file: VectorStoreFileRecord): Promise<void> {
    await this.queue?.cancel({ storeId: file.vector_store_id, fileId: file.id });
    await this.contents.remove(file.vector_store_id, file.id);
    await this.repository.deleteFile(file);
    this.sizeChanged(file.vector_store_id);
    await this.sources.remove(file.vector_store_id, file.id);
  }

  async fileChunks(file: VectorStoreFileRecord): Promise<StoredChunk[]> {
    if (file.status !== 'completed') return [];
    return (await this.data(file.vector_store_id)).chunks(file.id);
  }

  renderFile(file: VectorStoreFileRecord) {
    return renderFile(file);
  }

  // File batches

  async createBatch(store: VectorStoreRecord, files: NewFile[]): Promise<FileBatchRecord> {
    const batch: FileBatchRecord = {
      id: this.ids.next('vsfb_'),
      vector_store_id: store.id,
      account: store.account,
      created_at: this.now(),
      seq: this.repository.nextSeq(),
      file_ids: [...new Set(files.map((file) => file.id))],
      cancelled_at: null,
    };
    await this.repository.insertBatch(batch);
    await this.addFiles(store, files, batch.id);
    return batch;
  }

  requireBatch(store: VectorStoreRecord, batchId: string): FileBatchRecord {
    const batch = this.repository.batch(store.id, batchId);
    if (batch === undefined) throw new GatewayError('RESOURCE_5422', `No file batch "${batchId}" in vector store "${store.id}".`, { field: 'batch_id' });
    return batch;
  }

  batchFiles(batch: FileBatchRecord): VectorStoreFileRecord[] {
    const ids = new Set(batch.file_ids);
    return this.repository.filesOf(batch.vector_store_id).filter((file) => ids.has(file.id));
  }

  /** Cancels a batch: files not yet finished become `cancelled`; finished ones are kept. */
  async cancelBatch(batch: FileBatchRecord): Promise<void> {
    if (batch.cancelled_at !== null) return;
    const pending = this.batchFiles(batch).filter((file) => file.status === 'in_progress');
    for (const file of pending) await this.queue?.cancel({ storeId: batch.vector_store_id, fileId: file.id });
    // A file may have completed while its ingestion was being stopped: it keeps its result.
    await this.repository.updateFiles(pending.filter((file) => file.status === 'in_progress').map((file) => [file, { status: 'cancelled' as const }]));
    await this.repository.updateBatch(batch, { cancelled_at: this.now() });
  }

  renderBatch(batch: FileBatchRecord) {
    return renderBatch(batch, this.batchFiles(batch));
  }
}
