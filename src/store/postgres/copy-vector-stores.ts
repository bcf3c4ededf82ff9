import path from 'node:path';
import type pg from 'pg';
import { LocalContents } from '../../vector-stores/local-contents.js';
import type { FileBatchRecord, VectorStoreFileRecord, VectorStoreRecord } from '../../vector-stores/records.js';
import { sealFileData } from '../../vector-stores/replicated-contents.js';
import { fileKey, VectorStoreRepository } from '../../vector-stores/repository.js';
import { keySealer } from '../../vector-stores/sealer.js';
import { folderSourcePlace, SourceBlobs, sourceAad } from '../../vector-stores/source-blobs.js';
import { insertRecord } from './copy-records.js';
import { writeFileData, writeSource } from './vs-file-data.js';

export interface VectorStoresCopy {
  copied: { vector_stores: number; vector_store_files: number; vector_store_chunks: number };
  /** Stores already in the database (same id), kept as they are. */
  skipped: { vector_stores: number };
}

/**
 * `igw migrate --from-data-dir` for vector stores (issue 19 item 5), inside the copy's
 * transaction: each store's record, its files and file batches, and each completed file's chunk
 * texts and vectors, opened with the data dir's key and sealed again under the team's (the same
 * additional data: store and file). Files still in progress keep their pending text sources
 * (re-sealed) and get an ingestion job, so the team finishes them. Every instance builds its
 * search indexes from these rows on first use. A store already in the database is skipped whole.
 */
export async function copyVectorStores(client: pg.ClientBase, dataDir: string, keys: { source: Buffer; team: Buffer }): Promise<VectorStoresCopy> {
  const repository = await VectorStoreRepository.open(dataDir);
  const contents = new LocalContents(path.join(dataDir, 'vector_stores'), keySealer(keys.source));
  const sources = new SourceBlobs(folderSourcePlace(contents.folderOf), keySealer(keys.source));
  const team = keySealer(keys.team);
  const copy: VectorStoresCopy = { copied: { vector_stores: 0, vector_store_files: 0, vector_store_chunks: 0 }, skipped: { vector_stores: 0 } };
  try {
    for (const store of repository.allStores()) {
      if (!(await insertRecord(client, 'vector_stores', store.id, store satisfies VectorStoreRecord))) {
        copy.skipped.vector_stores += 1;
        continue;
      }
      copy.copied.vector_stores += 1;
      const files: readonly VectorStoreFileRecord[] = repository.filesOf(store.id);
      for (const file of files) {
        const record = { ...file };
        if (record.status === 'completed') {
          const data = await contents.data(store.id);
          const chunks = await data.chunks(file.id);
          const vectors = await data.vectors(file.id);
          await writeFileData(client, store.id, sealFileData(store.id, file.id, chunks, vectors, team));
          copy.copied.vector_store_chunks += chunks.length;
        } else if (record.status === 'in_progress') {
          if (record.source.kind === 'text') await writeSource(client, store.id, file.id, team.seal(await sources.read(store.id, file.id), sourceAad(store.id, file.id)));
          await client.query('INSERT INTO igw_vs_jobs (store_id, file_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [store.id, file.id]);
        }
        await insertRecord(client, 'vector_store_files', fileKey(record), record);
        copy.copied.vector_store_files += 1;
      }
      for (const batch of repository.batchesOf(store.id)) await insertRecord(client, 'vector_store_file_batches', batch.id, batch satisfies FileBatchRecord);
    }
  } finally {
    await contents.close();
    await repository.close();
  }
  return copy;
}
