import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import type { FileBytes } from './file-bytes.js';

/** About 1 MB per row: bounded memory on both ends, few rows per file. */
export const PART_BYTES = 1024 * 1024;
/** Parts older than this without a record are a crash's leftovers, not an upload still running. */
const ORPHAN_AGE = '1 hour';

/**
 * Writes a file's sealed bytes as parts of about PART_BYTES, on `client` inside the caller's
 * transaction: an upload's own, or `igw migrate --from-data-dir`'s (copy-files.ts).
 */
export async function writeFileParts(client: pg.ClientBase, id: string, sealed: Readable, signal?: AbortSignal): Promise<void> {
  let part = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    await client.query('INSERT INTO igw_file_parts (file_id, part, bytes) VALUES ($1, $2, $3)', [id, part, Buffer.concat(pending)]);
    part += 1;
    pending = [];
    pendingBytes = 0;
  };
  await pipeline(
    sealed,
    async (chunks: AsyncIterable<Buffer>) => {
      for await (const chunk of chunks) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= PART_BYTES) await flush();
      }
      if (pendingBytes > 0 || part === 0) await flush();
    },
    ...(signal ? ([{ signal }] as const) : []),
  );
}

/**
 * Team mode (issue 19; DESIGN §4): sealed file bytes in PostgreSQL (`igw_file_parts`), so every
 * instance serves every file. An upload's parts go in one transaction: a failed or interrupted
 * upload leaves nothing behind, and no part is visible before the whole file is. Reads fetch one
 * part at a time, as the reader asks for it.
 */
export class PostgresFileBytes implements FileBytes {
  constructor(private readonly pool: pg.Pool) {}

  async write(id: string, sealed: Readable, signal?: AbortSignal): Promise<void> {
    const client = await this.pool.connect();
    let failed: unknown;
    try {
      await client.query('BEGIN');
      await writeFileParts(client, id, sealed, signal);
      await client.query('COMMIT');
    } catch (error) {
      failed = error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      // A connection that failed mid-transaction is closed, not given back to the pool.
      client.release(failed !== undefined);
    }
  }

  async adopt(id: string, sealedPath: string): Promise<void> {
    try {
      await this.write(id, createReadStream(sealedPath));
    } finally {
      await rm(sealedPath, { force: true });
    }
  }

  openSealed(id: string): Readable {
    const pool = this.pool;
    let part = 0;
    return new Readable({
      async read() {
        try {
          const { rows } = await pool.query<{ bytes: Buffer }>('SELECT bytes FROM igw_file_parts WHERE file_id = $1 AND part = $2', [id, part]);
          part += 1;
          this.push(rows[0] === undefined ? null : rows[0].bytes);
        } catch (error) {
          this.destroy(error as Error);
        }
      },
    });
  }

  async remove(id: string): Promise<void> {
    await this.pool.query('DELETE FROM igw_file_parts WHERE file_id = $1', [id]);
  }

  async removeOrphans(known: (id: string) => boolean): Promise<void> {
    const { rows } = await this.pool.query<{ file_id: string }>(`SELECT DISTINCT file_id FROM igw_file_parts WHERE part = 0 AND written_at < now() - interval '${ORPHAN_AGE}'`);
    for (const { file_id: id } of rows) if (!known(id)) await this.remove(id);
  }
}
