import { pipeline } from 'node:stream';
import type pg from 'pg';
import { createSealStream } from '../../crypto/sealed-stream.js';
import { FileStore } from '../../files/file-store.js';
import { writeFileParts } from '../../files/postgres-file-bytes.js';
import { systemClock } from '../../util/clock.js';
import { randomIds } from '../../util/ids.js';
import { insertRecord } from './copy-records.js';

export interface FilesCopy {
  copied: { files: number; file_bytes: number };
  /** Files already in the database (same id), kept as they are. */
  skipped: { files: number };
}

/**
 * `igw migrate --from-data-dir` for files (issue 19 item 3), inside the copy's transaction: each
 * record with its id (batches and vector stores name files by id), and its bytes opened with the
 * data dir's key and sealed again under the team's, the same AAD (the file id) as an upload in
 * team mode (file-store.ts), written in ~1 MB parts as they stream: no whole file in memory.
 */
export async function copyFiles(client: pg.ClientBase, dataDir: string, keys: { source: Buffer; team: Buffer }): Promise<FilesCopy> {
  const files = await FileStore.open(dataDir, keys.source, systemClock, randomIds);
  const copy: FilesCopy = { copied: { files: 0, file_bytes: 0 }, skipped: { files: 0 } };
  try {
    for (const record of files.all()) {
      if (!(await insertRecord(client, 'files', record.id, record))) {
        copy.skipped.files += 1;
        continue;
      }
      const plain = files.openRead(record);
      const sealed = createSealStream(keys.team, { aad: record.id });
      pipeline(plain, sealed, (error) => {
        if (error) sealed.destroy(error);
      });
      await writeFileParts(client, record.id, sealed);
      copy.copied.files += 1;
      copy.copied.file_bytes += record.bytes;
    }
  } finally {
    await files.close();
  }
  return copy;
}
