import { Readable } from 'node:stream';
import { unseal } from '../crypto/sealed.js';
import type { FileStore } from '../files/file-store.js';
import type { BatchEnding, BatchTables } from '../store/postgres/batch-tables.js';
import type { IdGenerator } from '../util/ids.js';
import type { BatchRecord } from './batch-record.js';
import { notRunLine } from './row-output.js';

export interface TeamFinalizeDeps {
  tables: BatchTables;
  files: FileStore;
  key: Buffer;
  ids: IdGenerator;
  /** Unix seconds (the gateway clock, as the JSON runner's timestamps). */
  now: () => number;
}

/** Rows read per query: memory holds one page of output lines. */
const PAGE = 500;

async function* doneLines(deps: TeamFinalizeDeps, batchId: string, errored: boolean): AsyncGenerator<string> {
  let after = -1;
  for (;;) {
    const page = await deps.tables.doneRows(batchId, after, PAGE);
    for (const row of page) {
      if (row.errored === errored) yield `${unseal(deps.key, row.output, batchId).toString('utf8')}\n`;
    }
    if (page.length < PAGE) return;
    after = page.at(-1)!.index;
  }
}

async function* notRunLines(deps: TeamFinalizeDeps, batchId: string, code: 'batch_cancelled' | 'batch_expired'): AsyncGenerator<string> {
  let after = -1;
  for (;;) {
    const page = await deps.tables.rowsNotDone(batchId, after, PAGE);
    for (const row of page) yield `${JSON.stringify(notRunLine(deps.ids, row.customId, code))}\n`;
    if (page.length < PAGE) return;
    after = page.at(-1)!.index;
  }
}

/**
 * The team-mode finalization of one batch, run by the instance holding its batch lease
 * (BatchTables.claimFinalization): the output file (rows that succeeded) and the error file
 * (rows that failed, then, for a cancelled or expired batch, every row never run), each in input
 * order with every custom_id once, then the terminal status. As in the JSON runner (batch-run.ts),
 * each file id is saved as soon as the file exists, so a finalization taken over after a crash
 * does not write the same file twice. True when this instance ended the batch.
 */
export async function finalizeTeamBatch(deps: TeamFinalizeDeps, owner: string, record: BatchRecord, ending: BatchEnding): Promise<boolean> {
  const { tables, files } = deps;
  const fields: Partial<BatchRecord> = {};
  if (record.succeeded > 0 && record.output_file_id === null) {
    const output = await files.createFromStream(record.account, { filename: `${record.id}_output.jsonl`, purpose: 'batch_output' }, Readable.from(doneLines(deps, record.id, false)));
    fields.output_file_id = output.id;
    if (!(await tables.patch(owner, record.id, fields))) return false;
  }
  const notRun = ending === 'cancelled' || ending === 'expired' ? record.total - record.succeeded - record.errored : 0;
  if ((record.errored > 0 || notRun > 0) && record.error_file_id === null) {
    const lines = async function* (): AsyncGenerator<string> {
      yield* doneLines(deps, record.id, true);
      if (notRun > 0) yield* notRunLines(deps, record.id, ending === 'cancelled' ? 'batch_cancelled' : 'batch_expired');
    };
    const errors = await files.createFromStream(record.account, { filename: `${record.id}_error.jsonl`, purpose: 'batch_output' }, Readable.from(lines()));
    fields.error_file_id = errors.id;
    if (!(await tables.patch(owner, record.id, fields))) return false;
  }
  const now = deps.now();
  const stamp: Record<BatchEnding, keyof BatchRecord> = { succeeded: 'completed_at', cancelled: 'cancelled_at', expired: 'expired_at', failed: 'failed_at' };
  return tables.finish(owner, record.id, { ...fields, [stamp[ending]]: now });
}
