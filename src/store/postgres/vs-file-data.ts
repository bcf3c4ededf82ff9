import type pg from 'pg';
import { LeaseLost } from '../../vector-stores/contents.js';
import { inTransaction } from './transaction.js';

/** The channel on which every committed or removed file (and every dropped store) is announced. */
export const VS_CHANGES_CHANNEL = 'igw_vs_changes';

/** A file's stored contents, sealed as in the data dir (store-data.ts segments). */
export interface FileDataRow {
  file_id: string;
  seq: number;
  removed: boolean;
  chunk_count: number;
  usage_bytes: number;
  text_sealed: Buffer | null;
  vectors_sealed: Buffer | null;
}

/** What igw_vs_changes carries: the store, and the sequence number its change took (null: the store was dropped). */
export interface ChangeNotice {
  store_id: string;
  seq: number | null;
}

export class DimensionMismatch extends Error {}


/** Takes the store's next sequence number (under its row lock: sequence order is commit order). */
async function nextSeq(client: pg.ClientBase, storeId: string, dimensions: number | null): Promise<number> {
  await client.query('INSERT INTO igw_vs_feed (store_id) VALUES ($1) ON CONFLICT DO NOTHING', [storeId]);
  const { rows } = await client.query<{ seq: string; dimensions: number | null }>('SELECT seq, dimensions FROM igw_vs_feed WHERE store_id = $1 FOR UPDATE', [storeId]);
  const known = rows[0]!.dimensions;
  if (dimensions !== null && known !== null && dimensions !== known) {
    throw new DimensionMismatch(`the embedding model returned ${dimensions} dimensions; this store holds ${known}`);
  }
  const updated = await client.query<{ seq: string }>('UPDATE igw_vs_feed SET seq = seq + 1, dimensions = COALESCE(dimensions, $2) WHERE store_id = $1 RETURNING seq', [storeId, dimensions]);
  return Number(updated.rows[0]!.seq);
}

function announce(client: pg.ClientBase, notice: ChangeNotice): Promise<unknown> {
  // Delivered at commit, in commit order (PostgreSQL NOTIFY semantics).
  return client.query('SELECT pg_notify($1, $2)', [VS_CHANGES_CHANNEL, JSON.stringify(notice)]);
}

/** The lease of the job this commit finishes: checked and held (row lock) in the commit's transaction. */
export interface LeaseCheck {
  owner: string;
}

/** A file's contents as written: sealed text segment and vectors (see store-data.ts). */
export interface FileDataWrite {
  id: string;
  chunkCount: number;
  usageBytes: number;
  dimensions: number | null;
  text: Buffer;
  vectors: Buffer | null;
}

/** Stores (or replaces) a file's contents within the caller's transaction; returns the change's sequence number. */
export async function writeFileData(client: pg.ClientBase, storeId: string, file: FileDataWrite): Promise<number> {
  const seq = await nextSeq(client, storeId, file.dimensions);
  await client.query(
    `INSERT INTO igw_vs_file_data (store_id, file_id, seq, removed, chunk_count, usage_bytes, text_sealed, vectors_sealed)
     VALUES ($1, $2, $3, false, $4, $5, $6, $7)
     ON CONFLICT (store_id, file_id) DO UPDATE SET seq = EXCLUDED.seq, removed = false, chunk_count = EXCLUDED.chunk_count,
       usage_bytes = EXCLUDED.usage_bytes, text_sealed = EXCLUDED.text_sealed, vectors_sealed = EXCLUDED.vectors_sealed`,
    [storeId, file.id, seq, file.chunkCount, file.usageBytes, file.text, file.vectors],
  );
  await announce(client, { store_id: storeId, seq });
  return seq;
}

/** A text source waiting for ingestion, within the caller's transaction (or on the pool). */
export async function writeSource(db: pg.ClientBase | pg.Pool, storeId: string, fileId: string, sealed: Buffer): Promise<void> {
  await db.query('INSERT INTO igw_vs_sources (store_id, file_id, sealed) VALUES ($1, $2, $3) ON CONFLICT (store_id, file_id) DO UPDATE SET sealed = EXCLUDED.sealed', [storeId, fileId, sealed]);
}

async function holdLease(client: pg.PoolClient, storeId: string, fileId: string, lease: LeaseCheck): Promise<void> {
  const { rowCount } = await client.query('SELECT 1 FROM igw_vs_jobs WHERE store_id = $1 AND file_id = $2 AND lease_owner = $3 FOR UPDATE', [storeId, fileId, lease.owner]);
  if (rowCount !== 1) throw new LeaseLost();
}

/**
 * Vector store contents in PostgreSQL (team mode, issue 19 item 1): per file one row of sealed
 * chunk texts and vectors, written in one transaction with the store's next sequence number and
 * a notification, so each instance's index cache can follow (and catch up from its last sequence).
 */
export class VectorStoreFileData {
  constructor(private readonly pool: pg.Pool) {}

  /** Stores (or replaces) a file's contents; returns the sequence number of the change. */
  commit(storeId: string, file: FileDataWrite, lease?: LeaseCheck): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      if (lease !== undefined) await holdLease(client, storeId, file.id, lease);
      return writeFileData(client, storeId, file);
    });
  }

  /** Removes a file's contents (a tombstone row stays, so instances catching up see the removal). */
  remove(storeId: string, fileId: string): Promise<void> {
    return inTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query('SELECT 1 FROM igw_vs_file_data WHERE store_id = $1 AND file_id = $2 AND NOT removed FOR UPDATE', [storeId, fileId]);
      if (rowCount !== 1) return;
      const seq = await nextSeq(client, storeId, null);
      await client.query('UPDATE igw_vs_file_data SET seq = $3, removed = true, chunk_count = 0, usage_bytes = 0, text_sealed = NULL, vectors_sealed = NULL WHERE store_id = $1 AND file_id = $2', [
        storeId,
        fileId,
        seq,
      ]);
      await announce(client, { store_id: storeId, seq });
    });
  }

  /** Removes everything a store holds (deleted or expired store). */
  dropStore(storeId: string): Promise<void> {
    return inTransaction(this.pool, async (client) => {
      await client.query('DELETE FROM igw_vs_file_data WHERE store_id = $1', [storeId]);
      await client.query('DELETE FROM igw_vs_feed WHERE store_id = $1', [storeId]);
      await client.query('DELETE FROM igw_vs_sources WHERE store_id = $1', [storeId]);
      await announce(client, { store_id: storeId, seq: null });
    });
  }

  /** The store's current sequence number (0 before its first change). */
  async currentSeq(storeId: string): Promise<number> {
    const { rows } = await this.pool.query<{ seq: string }>('SELECT seq FROM igw_vs_feed WHERE store_id = $1', [storeId]);
    return Number(rows[0]?.seq ?? 0);
  }

  /** Files changed after `seq`, in sequence order (their latest version: a file changed twice appears once). */
  async changesSince(storeId: string, seq: number, limit = 500): Promise<FileDataRow[]> {
    const { rows } = await this.pool.query<FileDataRow & { seq: string; usage_bytes: string }>(
      'SELECT file_id, seq, removed, chunk_count, usage_bytes, text_sealed, vectors_sealed FROM igw_vs_file_data WHERE store_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [storeId, seq, limit],
    );
    return rows.map((row) => ({ ...row, seq: Number(row.seq), usage_bytes: Number(row.usage_bytes) }));
  }

  /** Ids of the files whose contents are committed (not removed). */
  async committedFiles(storeId: string): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ file_id: string }>('SELECT file_id FROM igw_vs_file_data WHERE store_id = $1 AND NOT removed', [storeId]);
    return new Set(rows.map((row) => row.file_id));
  }

  async isCommitted(storeId: string, fileId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM igw_vs_file_data WHERE store_id = $1 AND file_id = $2 AND NOT removed', [storeId, fileId]);
    return rowCount === 1;
  }

  async usageBytes(storeId: string, fileId: string): Promise<number> {
    const { rows } = await this.pool.query<{ usage_bytes: string }>('SELECT usage_bytes FROM igw_vs_file_data WHERE store_id = $1 AND file_id = $2 AND NOT removed', [storeId, fileId]);
    return Number(rows[0]?.usage_bytes ?? 0);
  }

  // Text sources (sources/text) until their ingestion, readable by whichever instance runs it.

  writeSource(storeId: string, fileId: string, sealed: Buffer): Promise<void> {
    return writeSource(this.pool, storeId, fileId, sealed);
  }

  async readSource(storeId: string, fileId: string): Promise<Buffer> {
    const { rows } = await this.pool.query<{ sealed: Buffer }>('SELECT sealed FROM igw_vs_sources WHERE store_id = $1 AND file_id = $2', [storeId, fileId]);
    if (rows[0] === undefined) throw new Error(`the text of file ${fileId} is no longer stored`);
    return rows[0].sealed;
  }

  async removeSource(storeId: string, fileId: string): Promise<void> {
    await this.pool.query('DELETE FROM igw_vs_sources WHERE store_id = $1 AND file_id = $2', [storeId, fileId]);
  }
}
