import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { ChangeFeed } from '../store/postgres/change-feed.js';
import { VS_CHANGES_CHANNEL, VectorStoreFileData, type ChangeNotice } from '../store/postgres/vs-file-data.js';
import { VS_JOBS_CHANNEL, VectorStoreJobs } from '../store/postgres/vs-jobs.js';
import { PgRecordCollection, type RecordNotice } from '../store/postgres/vs-record-collection.js';
import type { Logger } from '../util/logger.js';
import type { VectorStoreBacking } from './backing.js';
import { LeasedIngestJobs } from './leased-ingest-jobs.js';
import { LocalContents } from './local-contents.js';
import type { FileBatchRecord, VectorStoreFileRecord, VectorStoreRecord } from './records.js';
import { ReplicatedContents } from './replicated-contents.js';
import { VectorStoreRepository } from './repository.js';
import { keySealer } from './sealer.js';
import { SourceBlobs } from './source-blobs.js';

export interface TeamBackingOptions {
  pool: pg.Pool;
  url: string;
  dataDir: string;
  dataKey: Buffer;
  /** How long an ingestion lease lasts without renewal (vector_stores.ingest_lease_ms). */
  leaseMs: number;
  logger: Logger;
}

/**
 * Vector stores in PostgreSQL (team mode, issue 19): records in `igw_vs_records`, chunks and
 * vectors in `igw_vs_file_data`, ingestion jobs leased from `igw_vs_jobs`. One LISTEN connection
 * of its own follows the three channels: record changes update the caches in place, file changes
 * feed this instance's search indexes (kept in the data dir as a cache), queued jobs wake the
 * claimer. After the feed was down, records are reloaded and every open index catches up.
 */
export async function openTeamBacking(options: TeamBackingOptions): Promise<VectorStoreBacking> {
  const { pool, logger } = options;
  const origin = randomUUID();
  const sealer = keySealer(options.dataKey);
  const folder = path.join(options.dataDir, 'vector_stores');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const table = new VectorStoreFileData(pool);
  const contents = new ReplicatedContents(table, new LocalContents(folder, sealer), sealer, logger);
  const feed = new ChangeFeed(options.url, logger);
  let leased: LeasedIngestJobs | null = null;
  let collections: Array<PgRecordCollection<object>> = [];
  feed.subscribe('igw_vs_records', {
    change: (payload) => {
      const notice = JSON.parse(payload) as RecordNotice;
      collections.find((collection) => collection.kind === notice.kind)?.apply(notice);
    },
    resync: async () => {
      for (const collection of collections) await collection.reload();
    },
  });
  feed.subscribe(VS_CHANGES_CHANNEL, { change: (payload) => contents.onNotice(JSON.parse(payload) as ChangeNotice), resync: () => contents.resync() });
  feed.subscribe(VS_JOBS_CHANNEL, { change: () => leased?.wake(), resync: async () => leased?.wake() });
  try {
    // Listen before loading: a change committed while the caches load is not missed.
    await feed.start();
    const stores = await PgRecordCollection.open<VectorStoreRecord>(pool, 'store', (store) => store.id, origin);
    const files = await PgRecordCollection.open<VectorStoreFileRecord>(pool, 'file', (file) => `${file.vector_store_id}/${file.id}`, origin);
    const batches = await PgRecordCollection.open<FileBatchRecord>(pool, 'batch', (batch) => batch.id, origin);
    collections = [stores, files, batches] as Array<PgRecordCollection<object>>;
    const repository = VectorStoreRepository.over(stores, files, batches);
    files.onRemoteChange((_key, before, after) => repository.remoteFileChange(before, after));
    batches.onRemoteChange((_key, _before, after) => repository.remoteBatchChange(after));
    return {
      repository,
      contents,
      sources: new SourceBlobs({ write: (storeId, fileId, sealed) => table.writeSource(storeId, fileId, sealed), read: (storeId, fileId) => table.readSource(storeId, fileId), remove: (storeId, fileId) => table.removeSource(storeId, fileId) }, sealer),
      jobs: (worker, concurrency, onError) => {
        leased = new LeasedIngestJobs(new VectorStoreJobs(pool, origin, options.leaseMs), worker, concurrency, options.leaseMs, logger, onError);
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
