import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../app/context.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import type { Clock } from '../util/clock.js';
import type { IdGenerator } from '../util/ids.js';
import type { Logger } from '../util/logger.js';
import { abortableSleep } from '../util/sleep.js';
import type { DocumentTools } from './document-tools.js';
import { embedTexts } from './embedder.js';
import type { Attributes } from './filters.js';
import { IngestQueue, type IngestJob } from './ingest-queue.js';
import type { ExpiresAfter, FileBatchRecord, FileError, FileSource, StaticChunking, StoreChunking, VectorStoreFileRecord, VectorStoreRecord } from './records.js';
import { VectorStoreRepository } from './repository.js';
import { keySealer, type Sealer } from './sealer.js';
import { StoreData, type StoredChunk } from './store-data.js';
import { expiresAt, renderBatch, renderFile, renderStore } from './wire.js';

/** Activity is recorded in memory at once, on disk at most this often per store (no per-search rewrite). */
const ACTIVITY_WRITE_SECONDS = 60;
const EXPIRY_SWEEP_MS = 60_000;
/** Transient embedding failures (provider down, rate limited) are retried this many times. */
const INGEST_ATTEMPTS = 4;

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
}

/**
 * Managed vector stores (spec "Vector stores", DESIGN §4–§5): records, per-store data, the
 * ingestion queue (resumed at start-up) and expiry. Endpoints and `searchVectorStores` use it.
 */
export class VectorStoreService {
  private readonly loaded = new Map<string, Promise<StoreData>>();
  private queue: IngestQueue | null = null;
  private app: AppContext | null = null;
  private tools: DocumentTools | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly persistedActivity = new Map<string, number>();

  private constructor(
    readonly repository: VectorStoreRepository,
    private readonly folder: string,
    private readonly sealer: Sealer,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly logger: Logger,
  ) {}

  static async open(options: { dataDir: string; dataKey: Buffer; clock: Clock; ids: IdGenerator; logger: Logger }): Promise<VectorStoreService> {
    const folder = path.join(options.dataDir, 'vector_stores');
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const repository = await VectorStoreRepository.open(options.dataDir);
    return new VectorStoreService(repository, folder, keySealer(options.dataKey), options.clock, options.ids, options.logger);
  }

  private now(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  /**
   * Starts ingestion: files left `in_progress` by a previous process are reconciled (already
   * committed → completed) or queued again, and the expiry sweep begins.
   */
  async start(app: AppContext, tools: DocumentTools): Promise<void> {
    this.app = app;
    this.tools = tools;
    this.queue = new IngestQueue((job, signal) => this.ingest(job, signal), 2, (job, error) => {
      this.logger.error('vector store ingestion crashed', { vector_store_id: job.storeId, file_id: job.fileId, error: String(error) });
    });
    await this.sweepExpired();
    const pending = this.repository.allFiles().filter((file) => file.status === 'in_progress');
    const committedByStore = new Map<string, Set<string>>();
    const completed: Array<[VectorStoreFileRecord, Partial<VectorStoreFileRecord>]> = [];
    for (const file of pending) {
      let committed = committedByStore.get(file.vector_store_id);
      if (committed === undefined) {
        committed = await StoreData.committedFiles(this.storeFolder(file.vector_store_id));
        committedByStore.set(file.vector_store_id, committed);
      }
      if (committed.has(file.id)) {
        // Committed just before the crash, record not yet updated: the data is all there.
        const data = await this.data(file.vector_store_id);
        completed.push([file, { status: 'completed', last_error: null, usage_bytes: data.usageBytes(file.id) }]);
      } else {
        this.queue.enqueue({ storeId: file.vector_store_id, fileId: file.id });
      }
    }
    await this.repository.updateFiles(completed);
    this.sweepTimer = setInterval(() => void this.sweepExpired().catch((error: unknown) => this.logger.error('vector store expiry sweep failed', { error: String(error) })), EXPIRY_SWEEP_MS);
    this.sweepTimer.unref();
  }

  /** Resolves when no ingestion waits or runs. */
  idle(): Promise<void> {
    return this.queue?.idle() ?? Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.sweepTimer !== null) clearInterval(this.sweepTimer);
    await this.queue?.close();
    for (const [storeId, store] of this.loaded) {
      this.loaded.delete(storeId);
      await (await store).close().catch(() => undefined);
    }
    for (const store of this.repository.allStores()) await this.persistActivity(store, true);
  }

  /** `vector_stores/<id>/` (DESIGN §4); ids are UUIDs igw generated, so they are safe as names. */
  private storeFolder(storeId: string): string {
    if (!/^[0-9a-f-]{36}$/.test(storeId)) throw new Error(`not a vector store id: ${storeId}`);
    return path.join(this.folder, storeId);
  }

  /** The store's chunks and index, opened on first use. */
  data(storeId: string): Promise<StoreData> {
    let loading = this.loaded.get(storeId);
    if (loading === undefined) {
      loading = StoreData.open(storeId, this.storeFolder(storeId), this.sealer);
      this.loaded.set(storeId, loading);
      loading.catch(() => this.loaded.delete(storeId));
    }
    return loading;
  }

  private async dropData(storeId: string): Promise<void> {
    const loading = this.loaded.get(storeId);
    this.loaded.delete(storeId);
    if (loading !== undefined) await (await loading.catch(() => null))?.close().catch(() => undefined);
    await rm(this.storeFolder(storeId), { recursive: true, force: true });
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
  }

  render(store: VectorStoreRecord) {
    return renderStore(store, this.repository.filesOf(store.id));
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
          retried.push([existing, { status: 'in_progress', last_error: null, attributes: file.attributes, chunking_strategy: file.chunking_strategy, ...(batchId === null ? {} : { batch_id: batchId }) }]);
        }
        records.push(existing);
        continue;
      }
      if (file.bytes !== undefined) await this.writeSource(store.id, file.id, file.bytes);
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
      };
      created.push(record);
      records.push(record);
    }
    await this.repository.insertFiles(created);
    await this.repository.updateFiles(retried);
    await this.touch(store);
    for (const record of [...created, ...retried.map(([record]) => record)]) this.queue?.enqueue({ storeId: store.id, fileId: record.id });
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
    await (await this.data(file.vector_store_id)).removeFile(file.id);
    await this.repository.deleteFile(file);
    await rm(this.sourcePath(file.vector_store_id, file.id), { force: true });
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

  // Ingestion

  private sourcePath(storeId: string, fileId: string): string {
    return path.join(this.storeFolder(storeId), 'sources', Buffer.from(fileId, 'utf8').toString('base64url'));
  }

  private sourceAad(storeId: string, fileId: string): string {
    return `vector_store:${storeId}:${fileId}:source`;
  }

  /** Pending text, sealed and durable before the file is acknowledged. */
  private async writeSource(storeId: string, fileId: string, bytes: Buffer): Promise<void> {
    const target = this.sourcePath(storeId, fileId);
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const temporary = `${target}.tmp`;
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(this.sealer.seal(bytes, this.sourceAad(storeId, fileId)));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  }

  private async readSource(storeId: string, fileId: string): Promise<Buffer> {
    return this.sealer.unseal(await readFile(this.sourcePath(storeId, fileId)), this.sourceAad(storeId, fileId));
  }

  /** Text of a file, by source. */
  private async extractText(file: VectorStoreFileRecord, signal: AbortSignal): Promise<string> {
    const tools = this.tools!;
    switch (file.source.kind) {
      case 'text':
        return (await this.readSource(file.vector_store_id, file.id)).toString('utf8');
      case 'url': {
        const fetched = await tools.fetchUrl(file.source.url, signal);
        return (await tools.extract({ bytes: fetched.bytes, filename: fetched.filename, mimeType: fetched.mimeType })).text;
      }
      case 'file': {
        const files = this.app!.files;
        const record = await files.get(file.account, file.id);
        if (record === undefined) throw new IngestFailure({ code: 'invalid_file', message: `File "${file.id}" was deleted before it could be processed.` });
        return (await tools.extract({ bytes: await files.readAll(record), filename: record.filename, mimeType: file.source.mime_type ?? undefined })).text;
      }
    }
  }

  /** One file: extract → chunk → embed (billed to the store's account) → commit → completed. */
  private async ingest(job: IngestJob, signal: AbortSignal): Promise<void> {
    const app = this.app!;
    const store = this.repository.store(job.storeId);
    const file = this.repository.file(job.storeId, job.fileId);
    if (store === undefined || file === undefined || file.status !== 'in_progress' || store.expired_at !== null) return;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const text = await this.extractText(file, signal);
        const chunks = this.tools!.chunk(text, file.chunking_strategy).filter((chunk) => chunk.text.trim() !== '');
        if (chunks.length === 0) throw new IngestFailure({ code: 'invalid_file', message: 'The file contains no text to index.' });
        const vectors = await embedTexts(app, store.account, store.embedding_model, chunks.map((chunk) => chunk.text), { signal, endpoint: `/v1/vector_stores/{vector_store_id}/files (ingest)` });
        signal.throwIfAborted();
        if (this.repository.file(job.storeId, job.fileId) !== file || file.status !== 'in_progress') return;
        const data = await this.data(store.id);
        await data.commitFile(file.id, chunks, vectors);
        await this.repository.updateFile(file, { status: 'completed', last_error: null, usage_bytes: data.usageBytes(file.id) });
        await rm(this.sourcePath(store.id, file.id), { force: true });
        return;
      } catch (error) {
        // Shutdown or cancel: a shutdown leaves the file in_progress (resumed at the next start).
        if (signal.aborted) return;
        if (isGatewayError(error) && error.retryable && attempt < INGEST_ATTEMPTS) {
          await abortableSleep(500 * 2 ** attempt, signal).catch(() => undefined);
          if (signal.aborted) return;
          continue;
        }
        const lastError = failureOf(error);
        if (lastError.code === 'server_error' && !(error instanceof IngestFailure) && !isGatewayError(error)) {
          this.logger.error('vector store ingestion failed', { vector_store_id: store.id, file_id: file.id, error: String(error) });
        }
        if (this.repository.file(job.storeId, job.fileId) === file) await this.repository.updateFile(file, { status: 'failed', last_error: lastError });
        return;
      }
    }
  }
}

/** A failure that is the file's fault (unsupported, invalid) or a clear server-side reason. */
export class IngestFailure extends Error {
  constructor(readonly failure: FileError) {
    super(failure.message);
  }
}

function failureOf(error: unknown): FileError {
  if (error instanceof IngestFailure) return error.failure;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'unsupported_file' || code === 'invalid_file') return { code, message: (error as Error).message };
  // A request-shaped refusal of the source itself (a URL that cannot be fetched) is the file's fault.
  if (isGatewayError(error)) return { code: error.code.startsWith('VALIDATION_') ? 'invalid_file' : 'server_error', message: `${error.code}: ${error.message}` };
  return { code: 'server_error', message: 'The file could not be processed; the gateway log has the details.' };
}
