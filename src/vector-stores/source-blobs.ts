import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { Sealer } from './sealer.js';

/**
 * Text of `sources/text` files between the request and their ingestion, under
 * `vector_stores/<id>/sources/`: sealed (the store and file bound as associated data) and synced
 * before the file is acknowledged, removed once the file's chunks are committed.
 */
export class SourceBlobs {
  constructor(
    private readonly storeFolder: (storeId: string) => string,
    private readonly sealer: Sealer,
  ) {}

  private pathOf(storeId: string, fileId: string): string {
    return path.join(this.storeFolder(storeId), 'sources', Buffer.from(fileId, 'utf8').toString('base64url'));
  }

  private aad(storeId: string, fileId: string): string {
    return `vector_store:${storeId}:${fileId}:source`;
  }

  async write(storeId: string, fileId: string, bytes: Buffer): Promise<void> {
    const target = this.pathOf(storeId, fileId);
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    await writeFileAtomic(target, this.sealer.seal(bytes, this.aad(storeId, fileId)));
  }

  async read(storeId: string, fileId: string): Promise<Buffer> {
    return this.sealer.unseal(await readFile(this.pathOf(storeId, fileId)), this.aad(storeId, fileId));
  }

  async remove(storeId: string, fileId: string): Promise<void> {
    await rm(this.pathOf(storeId, fileId), { force: true });
  }
}
