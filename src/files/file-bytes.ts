import { createReadStream, createWriteStream } from 'node:fs';
import { open, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DirectorySync } from '../store/directory-sync.js';
import { readWholeFile, writeNewFileInFolderSynced } from '../store/disk-thread.js';

/**
 * Where a file's sealed bytes live (FileStore keeps records and sealing; this keeps bytes). Two
 * implementations, chosen in the composition root: the data dir (files/<id>) and PostgreSQL in
 * team mode (postgres-file-bytes.ts).
 */
export interface FileBytes {
  /** Stores `sealed` under `id`, streaming; on failure nothing of it stays. */
  write(id: string, sealed: Readable, signal?: AbortSignal): Promise<void>;
  /** Stores small sealed bytes held in memory under `id` (optional: without it they are streamed to write). */
  writeSealed?(id: string, sealed: Buffer): Promise<void>;
  /** Stores a sealed temp file (the upload endpoint's) under `id`; the temp file is gone afterwards. */
  adopt(id: string, sealedPath: string): Promise<void>;
  /** The sealed bytes, streamed. */
  openSealed(id: string): Readable;
  /** The sealed bytes whole, for a small file (optional: without it readers stream). */
  readSealed?(id: string): Promise<Buffer>;
  remove(id: string): Promise<void>;
  /** Removes bytes no record names (a crash between the bytes and the record). */
  removeOrphans(known: (id: string) => boolean): Promise<void>;
}

/**
 * Sealed blobs under `<data dir>/files/<id>`. Every way in (streamed, held in memory, adopted
 * temp file) resolves only once the bytes and the folder entry are on disk: the caller writes the
 * file's record next (fdatasync'ed in the journal), and a power loss must not leave a record
 * whose bytes are missing or short.
 */
export class DataDirFileBytes implements FileBytes {
  private readonly folderSync: DirectorySync;

  constructor(private readonly folder: string) {
    this.folderSync = new DirectorySync(folder);
  }

  private blobPath(id: string): string {
    return path.join(this.folder, id);
  }

  async write(id: string, sealed: Readable, signal?: AbortSignal): Promise<void> {
    const partPath = `${this.blobPath(id)}.part`;
    const out = createWriteStream(partPath, { flags: 'wx', mode: 0o600, flush: true });
    try {
      await pipeline(sealed, out, ...(signal ? ([{ signal }] as const) : []));
      await rename(partPath, this.blobPath(id));
      await this.folderSync.sync();
    } catch (error) {
      await rm(partPath, { force: true });
      throw error;
    }
  }

  /** The upload endpoint's temp file is written unsynced (most temp files are thrown away): synced here. */
  async adopt(id: string, sealedPath: string): Promise<void> {
    const temp = await open(sealedPath, 'r');
    try {
      await temp.sync();
    } finally {
      await temp.close();
    }
    await rename(sealedPath, this.blobPath(id));
    await this.folderSync.sync();
  }

  /**
   * Created under its final name, fsynced, then the folder fsynced, in one message to the request
   * disk thread (disk-thread.ts): the folder fsync is shared by every upload of the batch. Through
   * the thread pool this was seven round trips (writeFile's open, write, sync, close; the folder's
   * open, fsync, close), ~0.5 ms of CPU per upload on the 2-core VM (issue 16). A crash midway
   * leaves bytes no record names yet: removeOrphans clears them at the next start.
   */
  async writeSealed(id: string, sealed: Buffer): Promise<void> {
    try {
      await writeNewFileInFolderSynced({ path: this.blobPath(id), bytes: sealed }, this.folder);
    } catch (error) {
      await rm(this.blobPath(id), { force: true });
      throw error;
    }
  }

  openSealed(id: string): Readable {
    return createReadStream(this.blobPath(id));
  }

  /** On the disk thread: one message, where a read stream costs four thread-pool round trips (issue 16). */
  readSealed(id: string): Promise<Buffer> {
    return readWholeFile(this.blobPath(id));
  }

  remove(id: string): Promise<void> {
    return rm(this.blobPath(id), { force: true });
  }

  async removeOrphans(known: (id: string) => boolean): Promise<void> {
    for (const name of await readdir(this.folder)) {
      if (!known(name)) await rm(path.join(this.folder, name), { force: true });
    }
  }
}
