import type pg from 'pg';
import type { BatchRecord, BatchStatus } from '../../batches/batch-record.js';
import { decodeStringMap, decodeText, encodeStringMap, encodeText } from './nul-safe.js';
import { inTransaction } from './transaction.js';

/** A terminal status a finalization writes (igw_batches.ending). */
export type BatchEnding = Extract<BatchStatus, 'succeeded' | 'cancelled' | 'expired' | 'failed'>;

/** A row as a claim hands it to an instance: its lease is this instance's until renewed or done. */
export interface ClaimedRow {
  batchId: string;
  index: number;
  customId: string;
  /** The sealed request body (AAD = batch id). */
  body: Buffer;
}

/** A finished row as the finalization reads it back, in input order. */
export interface DoneRow {
  index: number;
  errored: boolean;
  /** The sealed output line (AAD = batch id). */
  output: Buffer;
}

export interface NewRow {
  index: number;
  customId: string;
  body: Buffer;
}

/** Statuses in which a batch still takes rows (with no `ending` set). */
const RUNNING = `status IN ('queued', 'in_progress') AND ending IS NULL`;
const ACTIVE = `('queued', 'in_progress', 'finalizing', 'cancelling')`;
const COLUMNS = 'record, status, succeeded, errored, total';

/** The batch document as stored: metadata (the client's strings) encoded, since jsonb refuses U+0000 (nul-safe.ts). */
type StoredBatchRecord = Omit<BatchRecord, 'metadata'> & { metadata: string | null };

interface BatchRow {
  record: StoredBatchRecord;
  status: BatchStatus;
  succeeded: number;
  errored: number;
  total: number;
}

/** The record as the wire shows it: status and counts are columns (changed by single statements), the rest is the document. */
function toRecord(row: BatchRow): BatchRecord {
  return { ...row.record, metadata: decodeStringMap(row.record.metadata), status: row.status, succeeded: row.succeeded, errored: row.errored, total: row.total };
}

export function storedRecord(record: BatchRecord): StoredBatchRecord {
  return { ...record, metadata: encodeStringMap(record.metadata) };
}

function lease(ms: number): string {
  return `now() + make_interval(secs => ${Number(ms) / 1000})`;
}

/**
 * The SQL of team-mode batches (migration 1764170000000_batches.sql). Every state change is one
 * conditional statement (or one short transaction), so two instances never both win a step: a
 * row is claimed by one (SKIP LOCKED), recorded done once (its lease owner, while the batch takes
 * rows), and a batch is finalized by the one instance holding its batch lease.
 */
export class BatchTables {
  constructor(private readonly pool: pg.Pool) {}

  /** Inserts a batch and its rows in one transaction; `rows` may throw (a bad line): nothing is kept then. */
  async insert(record: BatchRecord, rows: AsyncIterable<NewRow[]>): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      await client.query(`INSERT INTO igw_batches (id, account, status, expires_at, total, record) VALUES ($1, $2, $3, $4, 0, $5)`, [
        record.id,
        record.account,
        record.status,
        record.expires_at,
        storedRecord(record),
      ]);
      let total = 0;
      for await (const chunk of rows) {
        await client.query(`INSERT INTO igw_batch_rows (batch_id, idx, custom_id, body) SELECT $1, * FROM unnest($2::int[], $3::text[], $4::bytea[])`, [
          record.id,
          chunk.map((row) => row.index),
          chunk.map((row) => encodeText(row.customId)),
          chunk.map((row) => row.body),
        ]);
        total += chunk.length;
      }
      await client.query(`UPDATE igw_batches SET total = $2, record = record || jsonb_build_object('total', $2::int) WHERE id = $1`, [record.id, total]);
      return total;
    });
  }

  async get(id: string): Promise<BatchRecord | undefined> {
    const { rows } = await this.pool.query<BatchRow>(`SELECT ${COLUMNS} FROM igw_batches WHERE id = $1`, [id]);
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  /** Newest first, `limit + 1` at most (the caller tells has_more); an unknown `after` gives none. */
  async list(account: string, limit: number, after: string | undefined): Promise<BatchRecord[]> {
    const { rows } = await this.pool.query<BatchRow>(
      `SELECT ${COLUMNS} FROM igw_batches WHERE account = $1
         AND ($2::text IS NULL OR seq < (SELECT seq FROM igw_batches WHERE id = $2 AND account = $1))
       ORDER BY seq DESC LIMIT $3`,
      [account, after ?? null, limit + 1],
    );
    return rows.map(toRecord);
  }

  /** queued or in_progress → cancelling, unless the batch already ends another way; the record after. */
  async cancel(id: string, now: number): Promise<BatchRecord | undefined> {
    const { rows } = await this.pool.query<BatchRow>(
      `UPDATE igw_batches SET status = 'cancelling', record = record || jsonb_build_object('cancelling_at', $2::bigint)
       WHERE id = $1 AND ${RUNNING} RETURNING ${COLUMNS}`,
      [id, now],
    );
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  /**
   * Claims up to `count` rows no live lease holds, oldest batch first, for `owner` until the lease
   * runs out. Rows locked by another instance's claim at this very moment are skipped (SKIP
   * LOCKED), so two instances never claim the same row. Batches it claims from are in_progress.
   */
  async claimRows(owner: string, count: number, leaseMs: number, now: number): Promise<ClaimedRow[]> {
    const { rows } = await this.pool.query<{ batch_id: string; idx: number; custom_id: string; body: Buffer }>(
      `WITH picked AS (
         SELECT r.batch_id, r.idx FROM igw_batch_rows r JOIN igw_batches b ON b.id = r.batch_id
         WHERE NOT r.done AND (r.lease_until IS NULL OR r.lease_until < now())
           AND b.status IN ('queued', 'in_progress') AND b.ending IS NULL AND b.expires_at > $3
         ORDER BY b.seq, r.idx LIMIT $2 FOR UPDATE OF r SKIP LOCKED)
       UPDATE igw_batch_rows r SET lease_owner = $1, lease_until = ${lease(leaseMs)}
       FROM picked WHERE r.batch_id = picked.batch_id AND r.idx = picked.idx
       RETURNING r.batch_id, r.idx, r.custom_id, r.body`,
      [owner, count, now],
    );
    const batches = [...new Set(rows.map((row) => row.batch_id))];
    if (batches.length > 0) {
      await this.pool.query(
        `UPDATE igw_batches SET status = 'in_progress', record = record || jsonb_build_object('in_progress_at', $2::bigint)
         WHERE id = ANY($1) AND status = 'queued'`,
        [batches, now],
      );
    }
    return rows.map((row) => ({ batchId: row.batch_id, index: row.idx, customId: decodeText(row.custom_id), body: row.body })).sort((a, b) => a.index - b.index);
  }

  /** Extends every lease `owner` holds (rows running, and the batch steps it runs). */
  async renew(owner: string, leaseMs: number): Promise<void> {
    await this.pool.query(`UPDATE igw_batch_rows SET lease_until = ${lease(leaseMs)} WHERE lease_owner = $1 AND NOT done`, [owner]);
    await this.pool.query(`UPDATE igw_batches SET owner_until = ${lease(leaseMs)} WHERE owner = $1 AND status IN ${ACTIVE}`, [owner]);
  }

  /** Hands back every lease `owner` holds (a clean shutdown): other instances take the rows at once. */
  async release(owner: string): Promise<void> {
    await this.pool.query(`UPDATE igw_batch_rows SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1 AND NOT done`, [owner]);
    await this.pool.query(`UPDATE igw_batches SET owner = NULL, owner_until = NULL WHERE owner = $1`, [owner]);
  }

  /**
   * Records a finished row: its output line and the batch's count move in one transaction, and
   * only while `owner` holds the row (another instance that took it over after the lease ran out
   * records it instead) and the batch takes rows (a cancel, an expiry or the finalization came
   * first: the row is not done). The count's UPDATE takes the batch row's lock first, so a
   * status change waits for completions in flight and none lands after it. True when recorded.
   */
  async complete(owner: string, row: { batchId: string; index: number }, output: Buffer, errored: boolean): Promise<boolean> {
    return inTransaction(
      this.pool,
      async (client) => {
        const counted = await client.query(`UPDATE igw_batches SET succeeded = succeeded + $2, errored = errored + $3 WHERE id = $1 AND ${RUNNING}`, [
          row.batchId,
          errored ? 0 : 1,
          errored ? 1 : 0,
        ]);
        if (counted.rowCount !== 1) return false;
        const done = await client.query(
          `UPDATE igw_batch_rows SET done = true, errored = $4, output = $5, lease_owner = NULL, lease_until = NULL
           WHERE batch_id = $1 AND idx = $2 AND NOT done AND lease_owner = $3`,
          [row.batchId, row.index, owner, errored, output],
        );
        return done.rowCount === 1;
      },
      (recorded) => recorded,
    );
  }

  /** Which of these batches no longer take rows (cancelled, expiring, finalizing, gone): their rows in flight stop. */
  async stopped(batchIds: string[]): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ id: string }>(`SELECT id FROM igw_batches WHERE id = ANY($1) AND ${RUNNING}`, [batchIds]);
    const running = new Set(rows.map((row) => row.id));
    return new Set(batchIds.filter((id) => !running.has(id)));
  }

  /** A batch-level fault (its endpoint is not served here): the batch ends failed with this error. */
  async fail(id: string, errors: BatchRecord['errors']): Promise<void> {
    await this.pool.query(`UPDATE igw_batches SET ending = 'failed', record = record || jsonb_build_object('errors', $2::jsonb) WHERE id = $1 AND ${RUNNING}`, [
      id,
      JSON.stringify(errors),
    ]);
  }

  /**
   * Takes the batch lease of one batch that is due for finalization and no live lease holds:
   * every row done, cancelled, expired, failed, or a finalization whose instance died. Sets its
   * `ending` once (the first instance decides it) and shows `finalizing` for a batch whose rows
   * are all done. One conditional UPDATE: one instance wins.
   */
  async claimFinalization(owner: string, leaseMs: number, now: number): Promise<{ record: BatchRecord; ending: BatchEnding } | undefined> {
    const { rows } = await this.pool.query<BatchRow & { ending: BatchEnding }>(
      `UPDATE igw_batches b SET
         ending = COALESCE(b.ending, CASE WHEN b.status = 'cancelling' THEN 'cancelled' WHEN b.expires_at <= $2 THEN 'expired' ELSE 'succeeded' END),
         status = CASE WHEN b.ending IS NULL AND b.status IN ('queued', 'in_progress') AND b.expires_at > $2 THEN 'finalizing' ELSE b.status END,
         record = CASE WHEN b.ending IS NULL AND b.status IN ('queued', 'in_progress') AND b.expires_at > $2
                  THEN b.record || jsonb_build_object('finalizing_at', $2::bigint) ELSE b.record END,
         owner = $1, owner_until = ${lease(leaseMs)}
       WHERE b.id = (
         SELECT c.id FROM igw_batches c
         WHERE c.status IN ${ACTIVE} AND (c.owner_until IS NULL OR c.owner_until < now())
           AND (c.ending IS NOT NULL OR c.status IN ('finalizing', 'cancelling') OR c.expires_at <= $2
                OR NOT EXISTS (SELECT 1 FROM igw_batch_rows r WHERE r.batch_id = c.id AND NOT r.done))
         ORDER BY c.seq LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING ${COLUMNS}, ending`,
      [owner, now],
    );
    return rows[0] === undefined ? undefined : { record: toRecord(rows[0]), ending: rows[0].ending };
  }

  /** Saves fields of the record (a file id as soon as the file exists) while `owner` holds the batch lease. */
  async patch(owner: string, id: string, fields: Partial<BatchRecord>): Promise<boolean> {
    const result = await this.pool.query(`UPDATE igw_batches SET record = record || $3::jsonb WHERE id = $1 AND owner = $2`, [id, owner, JSON.stringify(fields)]);
    return result.rowCount === 1;
  }

  /** Done rows after `afterIndex`, in input order (keyset pages: memory stays one page). */
  async doneRows(batchId: string, afterIndex: number, limit: number): Promise<DoneRow[]> {
    const { rows } = await this.pool.query<{ idx: number; errored: boolean; output: Buffer }>(
      `SELECT idx, errored, output FROM igw_batch_rows WHERE batch_id = $1 AND done AND idx > $2 ORDER BY idx LIMIT $3`,
      [batchId, afterIndex, limit],
    );
    return rows.map((row) => ({ index: row.idx, errored: row.errored, output: row.output }));
  }

  /** Rows never done after `afterIndex`, in input order (the "not run" lines of a cancelled or expired batch). */
  async rowsNotDone(batchId: string, afterIndex: number, limit: number): Promise<Array<{ index: number; customId: string }>> {
    const { rows } = await this.pool.query<{ idx: number; custom_id: string }>(
      `SELECT idx, custom_id FROM igw_batch_rows WHERE batch_id = $1 AND NOT done AND idx > $2 ORDER BY idx LIMIT $3`,
      [batchId, afterIndex, limit],
    );
    return rows.map((row) => ({ index: row.idx, customId: decodeText(row.custom_id) }));
  }

  /**
   * Writes the terminal status (its `ending`) and drops the rows, in one transaction, while
   * `owner` holds the batch lease: the batch ends once. False when the lease was lost.
   */
  async finish(owner: string, id: string, fields: Partial<BatchRecord>): Promise<boolean> {
    return inTransaction(
      this.pool,
      async (client) => {
        const ended = await client.query(
          `UPDATE igw_batches SET status = ending, owner = NULL, owner_until = NULL, record = record || $3::jsonb
           WHERE id = $1 AND owner = $2 AND status IN ${ACTIVE} AND ending IS NOT NULL`,
          [id, owner, JSON.stringify(fields)],
        );
        if (ended.rowCount !== 1) return false;
        await client.query('DELETE FROM igw_batch_rows WHERE batch_id = $1', [id]);
        return true;
      },
      (ended) => ended,
    );
  }

  /** Rows of unfinished batches by state, across every instance (the `/metrics` gauge). */
  async rowCounts(): Promise<{ queued: number; running: number; succeeded: number; errored: number }> {
    const { rows } = await this.pool.query<{ queued: string; running: string; succeeded: string; errored: string }>(
      `SELECT count(*) FILTER (WHERE NOT r.done AND (r.lease_until IS NULL OR r.lease_until < now())) AS queued,
              count(*) FILTER (WHERE NOT r.done AND r.lease_until >= now()) AS running,
              count(*) FILTER (WHERE r.done AND NOT r.errored) AS succeeded,
              count(*) FILTER (WHERE r.done AND r.errored) AS errored
       FROM igw_batch_rows r JOIN igw_batches b ON b.id = r.batch_id WHERE b.status IN ${ACTIVE}`,
    );
    const row = rows[0]!;
    return { queued: Number(row.queued), running: Number(row.running), succeeded: Number(row.succeeded), errored: Number(row.errored) };
  }
}
