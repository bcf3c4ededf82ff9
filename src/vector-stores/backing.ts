import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { StoreContents } from './contents.js';
import { IngestQueue, type IngestJob, type IngestJobs, type IngestWorker } from './ingest-queue.js';
import { LocalContents } from './local-contents.js';
import { VectorStoreRepository } from './repository.js';
import { keySealer } from './sealer.js';
import { folderSourcePlace, SourceBlobs } from './source-blobs.js';

/**
 * Where vector stores are kept and who runs their ingestion: the storage port of
 * VectorStoreService, built by the composition root (app/gateway.ts) for the configured store
 * kind — the data dir here, PostgreSQL in team-backing.ts.
 */
export interface VectorStoreBacking {
  repository: VectorStoreRepository;
  contents: StoreContents;
  sources: SourceBlobs;
  /** The job runner around the service's worker. */
  jobs(worker: IngestWorker, concurrency: number, onError: (job: IngestJob, error: unknown) => void): IngestJobs;
  /** Jobs to queue again at start: files left `in_progress` and not committed (the data dir: all of them; team mode: none, their jobs are rows). */
  resumesLocally: boolean;
  /** Stops what the backing runs besides the repository and contents (a change feed). */
  close(): Promise<void>;
}

/** The data dir (DESIGN §4): `vector_stores.json`, journals, and one folder per store. */
export async function openLocalBacking(dataDir: string, dataKey: Buffer): Promise<VectorStoreBacking> {
  const folder = path.join(dataDir, 'vector_stores');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const sealer = keySealer(dataKey);
  const contents = new LocalContents(folder, sealer);
  await contents.sweepRemoved();
  return {
    repository: await VectorStoreRepository.open(dataDir),
    contents,
    sources: new SourceBlobs(folderSourcePlace(contents.folderOf), sealer),
    jobs: (worker, concurrency, onError) => new IngestQueue(worker, concurrency, onError),
    resumesLocally: true,
    close: async () => undefined,
  };
}
