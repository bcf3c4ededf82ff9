import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { Sealer } from './sealer.js';

/** Where sealed source bytes are kept: the store folder (data dir) or a table (team mode). */
export interface SourcePlace {
  write(storeId: string, fileId: string, sealed: Buffer): Promise<void>;
  read(storeId: string, fileId: string): Promise<Buffer>;
  remove(storeId: string, fileId: string): Promise<void>;
}

/** `vector_stores/<id>/sources/<file id, base64url>`: written atomically (synced) before the file is acknowledged. */
export function folderSourcePlace(storeFolder: (storeId: string) => string): SourcePlace {
  const pathOf = (storeId: string, fileId: string) => path.join(storeFolder(storeId), 'sources', Buffer.from(fileId, 'utf8').toString('base64url'));
  return {
    async write(storeId, fileId, sealed) {
      const target = pathOf(storeId, fileId);
      await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await writeFileAtomic(target, sealed);
    },
    read: (storeId, fileId) => readFile(pathOf(storeId, fileId)),
    remove: (storeId, fileId) => rm(pathOf(storeId, fileId), { force: true }),
  };
}

/** The additional data a pending text source is sealed with (the store and file it belongs to). */
export function sourceAad(storeId: string, fileId: string): string {
  return `vector_store:${storeId}:${fileId}:source`;
}

/**
 * Text of `sources/text` files between the request and their ingestion: sealed (the store and
 * file bound as associated data) and stored before the file is acknowledged, removed once the
 * file's chunks are committed.
 */
export class SourceBlobs {
  constructor(
    private readonly place: SourcePlace,
    private readonly sealer: Sealer,
  ) {}

  private aad(storeId: string, fileId: string): string {
    return sourceAad(storeId, fileId);
  }

  write(storeId: string, fileId: string, bytes: Buffer): Promise<void> {
    return this.place.write(storeId, fileId, this.sealer.seal(bytes, this.aad(storeId, fileId)));
  }

  async read(storeId: string, fileId: string): Promise<Buffer> {
    return this.sealer.unseal(await this.place.read(storeId, fileId), this.aad(storeId, fileId));
  }

  remove(storeId: string, fileId: string): Promise<void> {
    return this.place.remove(storeId, fileId);
  }
}
