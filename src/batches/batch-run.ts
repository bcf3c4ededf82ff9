import { setMaxListeners } from 'node:events';
import { Readable } from 'node:stream';
import type { TaskBoard, TaskHandle } from '../app/activity.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { FileStore } from '../files/file-store.js';
import type { Clock } from '../util/clock.js';
import type { IdGenerator } from '../util/ids.js';
import type { Logger } from '../util/logger.js';
import type { BatchRecord, BatchStatus } from './batch-record.js';
import type { BatchRepository } from './batch-repository.js';
import { batchRows, type BatchRow } from './input-rows.js';
import { readJsonlLines } from './jsonl.js';
import { ResultsLog, type RowResult } from './results-log.js';
import { batchPrincipal, notRunLine, rowOutput, type RowExecute } from './row-output.js';
import type { Semaphore } from './semaphore.js';

export interface BatchRunDeps {
  /** The endpoint's execute; undefined only if the gateway does not serve it (the batch then fails). */
  execute: RowExecute | undefined;
  tasks: TaskBoard;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  repository: BatchRepository;
  files: FileStore;
  semaphore: Semaphore;
  key: Buffer;
  logPath: string;
  maxLineBytes: number;
  maxRequests: number;
}

type StopReason = 'cancel' | 'expire' | 'shutdown';

/** Longest timer node allows; a longer window is re-armed when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One batch from where it stands to a terminal status: queued → in_progress → finalizing →
 * succeeded, or cancelled / expired (finished rows kept, the rest listed in the error file) or
 * failed (a batch-level fault: the input became unreadable). Resumable at any point: finished
 * rows are read back from the results log and never run again.
 */
export class BatchRun {
  private readonly abort = new AbortController();
  private stopReason: StopReason | null = null;
  private readonly log: ResultsLog;
  private done = new Uint8Array(0);
  private expiryTimer: NodeJS.Timeout | null = null;
  private finished: Promise<void> | null = null;
  private logFailure: Error | null = null;
  /** The `igw serve` dashboard's view of this run. */
  private task: TaskHandle | null = null;

  constructor(
    private readonly record: BatchRecord,
    private readonly deps: BatchRunDeps,
  ) {
    this.log = new ResultsLog(deps.logPath, deps.key, record.id);
    // Every row in flight listens on this one signal (its upstream call's abort), and those are at
    // most the semaphore's permits (batches.concurrency): past Node's default of 10 it would warn
    // of a leak in the terminal of `igw serve` (the margin: the run's own). Each call removes its listener when it ends.
    setMaxListeners(Math.max(10, deps.semaphore.permits + 10), this.abort.signal);
  }

  private now(): number {
    return Math.floor(this.deps.clock.now() / 1000);
  }

  stop(reason: StopReason): void {
    // A cancel or an expiry decides the outcome; a shutdown only pauses the batch.
    if (this.stopReason === null || (this.stopReason === 'shutdown' && reason !== 'shutdown')) this.stopReason = reason;
    this.abort.abort(new Error(`batch ${reason}`));
  }

  async stopAndWait(reason: StopReason): Promise<void> {
    this.stop(reason);
    await this.finished;
  }

  execute(): Promise<void> {
    this.finished ??= this.executeSafely();
    return this.finished;
  }

  private async executeSafely(): Promise<void> {
    const record = this.record;
    // The dashboard names a batch by its metadata name or its input file, not by its id.
    const input = await this.deps.files.get(record.account, record.input_file_id).catch(() => undefined);
    const name = record.metadata?.['name'] ?? input?.filename ?? record.id;
    this.task = this.deps.tasks.startTask('batch', record.id, `${name} ${record.endpoint}`, { total: record.total });
    try {
      await this.executeSteps();
    } catch (error) {
      this.deps.logger.error('batch failed', { batch_id: this.record.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      if (this.stopReason !== 'shutdown') {
        await this.fail(error instanceof GatewayError ? error.code : 'SYSTEM_9001', error instanceof Error ? error.message : String(error), lineOf(error)).catch(() => undefined);
      }
    } finally {
      if (this.expiryTimer !== null) clearTimeout(this.expiryTimer);
      await this.log.close().catch(() => undefined);
      this.task.progress({ done: record.succeeded + record.errored, failed: record.errored });
      const status = record.status;
      if (status === 'succeeded') this.task.end('completed');
      else if (status === 'failed' || status === 'expired') this.task.end('failed', status);
      else this.task.end('cancelled', status === 'cancelled' ? status : 'paused; resumes at the next start');
    }
  }

  private async executeSteps(): Promise<void> {
    const record = this.record;
    this.done = new Uint8Array(record.total);
    // Counts are rebuilt from the log: the record may be older than the last rows written.
    record.succeeded = 0;
    record.errored = 0;
    for await (const result of this.log.read()) {
      if (result.i >= record.total || this.done[result.i] === 1) continue;
      this.done[result.i] = 1;
      if (result.out.error === null) record.succeeded += 1;
      else record.errored += 1;
    }
    // Rows an earlier run finished: the dashboard shows them, the metrics counted them back then.
    this.task?.restore({ done: record.succeeded + record.errored, failed: record.errored });

    if (record.status === 'cancelling') return this.finalize('cancelled');
    if (record.status === 'finalizing') return this.finalize('succeeded');
    if (this.now() >= record.expires_at) return this.finalize('expired');
    this.armExpiry();

    if (record.status === 'queued') {
      record.status = 'in_progress';
      record.in_progress_at = this.now();
      await this.deps.repository.save(record);
    }
    await this.log.openForAppend((error) => {
      this.logFailure = error;
      this.abort.abort(error);
    });
    await this.runRows();
    if (this.logFailure !== null) throw this.logFailure;

    switch (this.stopReason) {
      case 'shutdown':
        return;
      case 'cancel':
        return this.finalize('cancelled');
      case 'expire':
        return this.finalize('expired');
      default:
        record.status = 'finalizing';
        record.finalizing_at = this.now();
        await this.deps.repository.save(record);
        return this.finalize('succeeded');
    }
  }

  private armExpiry(): void {
    const remainingMs = this.record.expires_at * 1000 - this.deps.clock.now();
    this.expiryTimer = setTimeout(() => {
      if (this.now() >= this.record.expires_at) this.stop('expire');
      else this.armExpiry();
    }, Math.max(0, Math.min(remainingMs, MAX_TIMER_MS)));
    this.expiryTimer.unref();
  }

  /** Streams the input and runs every row not yet done, at most `concurrency` at a time overall. */
  private async runRows(): Promise<void> {
    const { files, execute } = this.deps;
    if (execute === undefined) throw new GatewayError('VALIDATION_4007', `The endpoint ${this.record.endpoint} is not served by this gateway.`);
    const input = await files.get(this.record.account, this.record.input_file_id);
    if (input === undefined) throw new GatewayError('INFERENCE_3302', `The input file ${this.record.input_file_id} was deleted before the batch finished.`);
    const source = files.openRead(input);
    const inFlight = new Set<Promise<void>>();
    try {
      for await (const row of batchRows(readJsonlLines(source, this.deps.maxLineBytes), { endpoint: this.record.endpoint, maxRequests: this.deps.maxRequests })) {
        if (this.stopReason !== null) break;
        if (row.index >= this.record.total) throw new GatewayError('INFERENCE_3303', 'The input file changed after the batch was created.');
        if (this.done[row.index] === 1) continue;
        await this.deps.semaphore.acquire();
        if (this.stopReason !== null) {
          this.deps.semaphore.release();
          break;
        }
        // The permit bounds calls in flight; it is handed back as soon as the call is over,
        // while the row's line is still on its way to the results log.
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          this.deps.semaphore.release();
        };
        const task = this.runRow(execute, row, release).finally(() => {
          release();
          inFlight.delete(task);
        });
        inFlight.add(task);
      }
    } finally {
      source.destroy();
      await Promise.all(inFlight);
    }
  }

  private async runRow(execute: RowExecute, row: BatchRow, callDone: () => void): Promise<void> {
    const out = await rowOutput(execute, row, batchPrincipal(this.record), this.abort.signal, this.deps.ids);
    if (out === null) return;
    callDone();
    try {
      await this.log.append({ i: row.index, out });
    } catch {
      return; // the log failure stops the run (openForAppend's handler); this row is not done
    }
    this.done[row.index] = 1;
    if (out.error === null) this.record.succeeded += 1;
    else this.record.errored += 1;
    this.task?.progress({ done: this.record.succeeded + this.record.errored, failed: this.record.errored });
    this.deps.repository.saveSoon(this.record);
  }

  /**
   * Writes the output file (rows that succeeded) and the error file (rows that failed, plus,
   * for a cancelled or expired batch, every row never run), then the terminal status. Both are
   * `batch_output` files; one line per input row across the two.
   */
  private async finalize(status: Extract<BatchStatus, 'succeeded' | 'cancelled' | 'expired' | 'failed'>): Promise<void> {
    const record = this.record;
    const { files } = this.deps;
    // Each file id is saved as soon as the file exists: a finalization cut short by a crash
    // resumes without writing the same file twice.
    if (record.succeeded > 0 && record.output_file_id === null) {
      const output = await files.createFromStream(record.account, { filename: `${record.id}_output.jsonl`, purpose: 'batch_output' }, Readable.from(this.lines((result) => result.out.error === null)));
      record.output_file_id = output.id;
      await this.deps.repository.save(record);
    }
    const notRun = status === 'cancelled' || status === 'expired' ? record.total - record.succeeded - record.errored : 0;
    if ((record.errored > 0 || notRun > 0) && record.error_file_id === null) {
      const errorLines = async function* (this: BatchRun): AsyncGenerator<string> {
        yield* this.lines((result) => result.out.error !== null);
        if (notRun > 0) yield* this.notRunLines(status === 'cancelled' ? 'batch_cancelled' : 'batch_expired');
      }.call(this);
      const errors = await files.createFromStream(record.account, { filename: `${record.id}_error.jsonl`, purpose: 'batch_output' }, Readable.from(errorLines));
      record.error_file_id = errors.id;
      await this.deps.repository.save(record);
    }
    const now = this.now();
    record.status = status;
    if (status === 'succeeded') record.completed_at = now;
    if (status === 'cancelled') record.cancelled_at = now;
    if (status === 'expired') record.expired_at = now;
    if (status === 'failed') record.failed_at = now;
    await this.deps.repository.save(record);
    await this.log.remove();
  }

  private async *lines(keep: (result: RowResult) => boolean): AsyncGenerator<string> {
    const seen = new Uint8Array(this.record.total);
    for await (const result of this.log.read()) {
      if (result.i >= this.record.total || seen[result.i] === 1 || !keep(result)) continue;
      seen[result.i] = 1;
      yield `${JSON.stringify(result.out)}\n`;
    }
  }

  private async *notRunLines(code: 'batch_cancelled' | 'batch_expired'): AsyncGenerator<string> {
    const input = await this.deps.files.get(this.record.account, this.record.input_file_id);
    if (input === undefined) return;
    const source = this.deps.files.openRead(input);
    try {
      for await (const row of batchRows(readJsonlLines(source, this.deps.maxLineBytes), { endpoint: this.record.endpoint, maxRequests: this.deps.maxRequests })) {
        if (row.index < this.record.total && this.done[row.index] !== 1) {
          yield `${JSON.stringify(notRunLine(this.deps.ids, row.custom_id, code))}\n`;
        }
      }
    } finally {
      source.destroy();
    }
  }

  /** A batch-level fault: the finished rows are still delivered. */
  private async fail(code: string, message: string, line: number | null): Promise<void> {
    this.record.errors = [{ code, message, line, param: null }];
    await this.log.close();
    await this.finalize('failed');
  }
}

function lineOf(error: unknown): number | null {
  const line = error instanceof GatewayError ? error.details?.['line'] : undefined;
  return typeof line === 'number' ? line : null;
}
