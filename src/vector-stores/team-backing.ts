import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { ChangeFeed } from '../store/postgres/change-feed.js';
import { VS_CHANGES_CHANNEL, VectorStoreFileData, type ChangeNotice } from '../store/postgres/vs-file-data.js';
import { VS_JOBS_CHANNEL, VectorStoreJobs } from '../store/postgres/vs-jobs.js';
import type { CollectionOpener } from '../store/postgres/pg-collection.js';
import type { Logger } from '../util/logger.js';
import type { VectorStoreBacking } from './backing.js';
import { LeasedIngestJobs } from './leased-ingest-jobs.js';
import { LocalContents } from './local-contents.js';
import type { FileBatchRecord, VectorStoreFileRecord, VectorStoreRecord } from './records.js';
import { ReplicatedContents } from './replicated-contents.js';
import { fileKey, VectorStoreRepository } from './repository.js';
import { keySealer } from './sealer.js';
import { SourceBlobs } from './source-blobs.js';

export interface TeamBackingOptions {
  pool: pg.Pool;
  /** The team store's PostgresCollections (records in igw_records, followed by its own feed). */
  collections: CollectionOpener;
  url: string;
  dataDir: string;
  dataKey: Buffer;
  /** How long an ingestion lease lasts without renewal (vector_stores.ingest_lease_ms). */
  leaseMs: number;
  logger: Logger;
}

/**
 * Vector stores in PostgreSQL (team mode, issue 19): records in PostgresCollections (stores,
 * files, file batches), chunks and vectors in `igw_vs_file_data`, ingestion jobs leased from
 * `igw_vs_jobs`. One LISTEN connection of its own follows the two channels: file changes feed
 * this instance's search indexes (kept in the data dir as a cache), queued jobs wake the
 * claimer. After the feed was down, every open index catches up.
 */
export async function openTeamBacking(options: TeamBackingOptions): Promise<VectorStoreBacking> {
  const { pool, logger } = options;
  const sealer = keySealer(options.dataKey);
  const folder = path.join(options.dataDir, 'vector_stores');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const table = new VectorStoreFileData(pool);
  const cache = new LocalContents(folder, sealer);
  await cache.sweepRemoved();
  const contents = new ReplicatedContents(table, cache, sealer, logger);
  const feed = new ChangeFeed(options.url, logger);
  let leased: LeasedIngestJobs | null = null;
  feed.subscribe(VS_CHANGES_CHANNEL, { change: (payload) => contents.onNotice(JSON.parse(payload) as ChangeNotice), resync: () => contents.resync() });
  feed.subscribe(VS_JOBS_CHANNEL, { change: () => leased?.wake(), resync: async () => leased?.wake() });
  try {
    // Listen before loading: a change committed while the caches load is not missed.
    await feed.start();
    // The same collection names as the data dir's files (vector_stores.json, vector_store_files…).
    const stores = await options.collections.open<VectorStoreRecord>('vector_stores', { key: (store) => store.id });
    const files = await options.collections.open<VectorStoreFileRecord>('vector_store_files', { key: fileKey });
    const batches = await options.collections.open<FileBatchRecord>('vector_store_file_batches', { key: (batch) => batch.id });
    const repository = VectorStoreRepository.over(stores, files, batches);
    files.onRemoteChange((key, record) => repository.remoteFileChange(key, record));
    batches.onRemoteChange((_key, record) => repository.remoteBatchChange(record));
    return {
      repository,
      contents,
      sources: new SourceBlobs({ write: (storeId, fileId, sealed) => table.writeSource(storeId, fileId, sealed), read: (storeId, fileId) => table.readSource(storeId, fileId), remove: (storeId, fileId) => table.removeSource(storeId, fileId) }, sealer),
      jobs: (worker, concurrency, onError) => {
        leased = new LeasedIngestJobs(new VectorStoreJobs(pool, randomUUID(), options.leaseMs), worker, concurrency, options.leaseMs, logger, onError);
        leased.wake();
        return leased;
      },
      resumesLocally: false,
      close: () => feed.close(),
    };
  } catch (error) {
    await feed.close();
    throw error;
  }
}
