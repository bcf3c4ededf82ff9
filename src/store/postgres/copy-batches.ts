import path from 'node:path';
import type pg from 'pg';
import { ACTIVE_STATUSES, type BatchRecord } from '../../batches/batch-record.js';
import { BatchRepository } from '../../batches/batch-repository.js';
import { batchRows } from '../../batches/input-rows.js';
import { readJsonlLines } from '../../batches/jsonl.js';
import { ResultsLog, type OutputLine } from '../../batches/results-log.js';
import { seal } from '../../crypto/sealed.js';
import { FileStore } from '../../files/file-store.js';
import { systemClock } from '../../util/clock.js';
import { randomIds } from '../../util/ids.js';
import { storedRecord } from './batch-tables.js';
import { encodeText } from './nul-safe.js';

export interface BatchesCopy {
  copied: { batches: number; batch_rows: number };
  /** Batches already in the database (same id), kept as they are. */
  skipped: { batches: number };
}

/** Rows inserted per statement. */
const CHUNK = 500;

/** Longest input line read back (the input was checked at create with the server's limit; this only guards memory). */
const MAX_LINE_BYTES = 256 * 1024 * 1024;

interface RowValues {
  index: number[];
  customId: string[];
  body: Buffer[];
  done: boolean[];
  errored: Array<boolean | null>;
  output: Array<Buffer | null>;
}

const emptyRows = (): RowValues => ({ index: [], customId: [], body: [], done: [], errored: [], output: [] });

async function insertRows(client: pg.ClientBase, batchId: string, rows: RowValues): Promise<void> {
  await client.query(
    `INSERT INTO igw_batch_rows (batch_id, idx, custom_id, body, done, errored, output)
     SELECT $1, * FROM unnest($2::int[], $3::text[], $4::bytea[], $5::boolean[], $6::boolean[], $7::bytea[])`,
    [batchId, rows.index, rows.customId, rows.body, rows.done, rows.errored, rows.output],
  );
}

/**
 * The rows of a batch the data dir was still running: every input row, sealed under the team's
 * key, with the rows its results log holds already done (their output lines re-sealed), so
 * they do not run again in team mode. Returns the counts of done rows.
 */
async function copyActiveRows(client: pg.ClientBase, record: BatchRecord, dataDir: string, files: FileStore, keys: { source: Buffer; team: Buffer }): Promise<{ rows: number; succeeded: number; errored: number }> {
  const finished = new Map<number, OutputLine>();
  for await (const result of new ResultsLog(path.join(dataDir, 'batches', `${record.id}.results`), keys.source, record.id).read()) {
    if (result.i < record.total && !finished.has(result.i)) finished.set(result.i, result.out);
  }
  const input = await files.get(record.account, record.input_file_id);
  if (input === undefined) throw new Error(`batch ${record.id}: its input file ${record.input_file_id} is gone from ${dataDir}; cancel the batch there before copying`);
  const source = files.openRead(input);
  let rows = 0;
  let pending = emptyRows();
  try {
    for await (const row of batchRows(readJsonlLines(source, MAX_LINE_BYTES), { endpoint: record.endpoint, maxRequests: Number.MAX_SAFE_INTEGER })) {
      if (row.index >= record.total) break;
      const out = finished.get(row.index);
      pending.index.push(row.index);
      pending.customId.push(encodeText(row.custom_id));
      pending.body.push(seal(keys.team, Buffer.from(JSON.stringify(row.body)), record.id));
      pending.done.push(out !== undefined);
      pending.errored.push(out === undefined ? null : out.error !== null);
      pending.output.push(out === undefined ? null : seal(keys.team, Buffer.from(JSON.stringify(out)), record.id));
      rows += 1;
      if (pending.index.length === CHUNK) {
        await insertRows(client, record.id, pending);
        pending = emptyRows();
      }
    }
  } finally {
    source.destroy();
  }
  if (pending.index.length > 0) await insertRows(client, record.id, pending);
  const outputs = [...finished.values()];
  return { rows, succeeded: outputs.filter((out) => out.error === null).length, errored: outputs.filter((out) => out.error !== null).length };
}

/**
 * `igw migrate --from-data-dir` for batches (issue 19 item 4), inside the copy's transaction:
 * every batch record (finished ones as they are: their output and error files are files), and
 * for a batch still running, its rows with the finished ones marked done, so team mode finishes
 * it without running a row twice. `keys.source` opens the data dir's results logs and input
 * files; `keys.team` seals what goes into the database.
 */
export async function copyBatches(client: pg.ClientBase, dataDir: string, keys: { source: Buffer; team: Buffer }): Promise<BatchesCopy> {
  const repository = await BatchRepository.open(dataDir);
  const records = repository.all().map((record) => ({ ...record }));
  await repository.close();
  const files = await FileStore.open(dataDir, keys.source, systemClock, randomIds);
  const copy: BatchesCopy = { copied: { batches: 0, batch_rows: 0 }, skipped: { batches: 0 } };
  try {
    for (const record of records) {
      const inserted = await client.query(
        `INSERT INTO igw_batches (id, account, status, expires_at, total, succeeded, errored, record) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
        [record.id, record.account, record.status, record.expires_at, record.total, record.succeeded, record.errored, storedRecord(record)],
      );
      if (inserted.rowCount !== 1) {
        copy.skipped.batches += 1;
        continue;
      }
      copy.copied.batches += 1;
      if (!ACTIVE_STATUSES.has(record.status)) continue;
      // Counts come from the results log, as the JSON runner rebuilds them on resume (batch-run.ts).
      const rows = await copyActiveRows(client, record, dataDir, files, keys);
      await client.query('UPDATE igw_batches SET succeeded = $2, errored = $3 WHERE id = $1', [record.id, rows.succeeded, rows.errored]);
      copy.copied.batch_rows += rows.rows;
    }
  } finally {
    await files.close();
  }
  return copy;
}
