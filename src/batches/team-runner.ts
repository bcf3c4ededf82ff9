import { hostname } from 'node:os';
import type { TaskHandle } from '../app/activity.js';
import { seal, unseal } from '../crypto/sealed.js';
import type { FileStore } from '../files/file-store.js';
import type { BatchTables, ClaimedRow } from '../store/postgres/batch-tables.js';
import type { Clock } from '../util/clock.js';
import { randomHex, type IdGenerator } from '../util/ids.js';
import type { Logger } from '../util/logger.js';
import { TERMINAL_STATUSES, type BatchRecord } from './batch-record.js';
import type { BatchPorts } from './batches-port.js';
import { batchPrincipal, rowOutput } from './row-output.js';
import { finalizeTeamBatch } from './team-finalize.js';

export interface TeamRunnerDeps {
  tables: BatchTables;
  files: FileStore;
  /** The data key rows and output lines are sealed under (AAD = batch id). */
  key: Buffer;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** Rows this instance runs at once (config batches.concurrency). */
  concurrency: number;
  /** How long a claimed row stays this instance's without renewal (config batches.lease_seconds). */
  leaseMs: number;
  /** Pause between rounds when there was nothing to do (another instance's new batch is seen within it). */
  idleMs?: number;
}

/** Longest pause between batch-level checks (a cancel or expiry elsewhere stops rows here within it) while rows keep coming. */
const CHECK_MS = 250;

interface Running {
  batchId: string;
  abort: AbortController;
  done: Promise<void>;
}

/** This instance's part of a batch on the dashboard: the rows it ran. */
interface BatchTask {
  handle: TaskHandle;
  done: number;
  failed: number;
}

/**
 * The team-mode row runner of one instance (issue 19 item 2, DESIGN §4 "work is claimed with
 * leases"). In rounds: finalize a batch that is due (one instance wins its batch lease), stop rows
 * whose batch no longer takes them (cancelled or expiring on any instance), then claim as many rows
 * as it has free slots (FOR UPDATE SKIP LOCKED) and run each through its endpoint's execute. Leases
 * are renewed every third of their length while rows run; a dead instance's rows become
 * claimable once its leases run out. A row's output line is recorded with the row's `done` in one
 * transaction, so whichever instance finishes a row, it is in the output once.
 */
export class TeamBatchRunner {
  /** This process's lease owner name (a restart is a new owner: its old leases just expire). */
  readonly owner = `${hostname()}:${process.pid}:${randomHex(4)}`;
  private readonly running = new Map<string, Running>();
  private readonly records = new Map<string, BatchRecord>();
  private readonly tasks = new Map<string, BatchTask>();
  private ports: BatchPorts | null = null;
  private closed = false;
  private loop: Promise<void> | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private finalizing = false;
  /** When the batch-level checks last ran (Date.now()). */
  private lastCheck = 0;

  constructor(private readonly deps: TeamRunnerDeps) {}

  private now(): number {
    return Math.floor(this.deps.clock.now() / 1000);
  }

  start(ports: BatchPorts): void {
    this.ports = ports;
    this.renewTimer = setInterval(() => {
      if (this.running.size === 0 && !this.finalizing) return;
      this.deps.tables.renew(this.owner, this.deps.leaseMs).catch((error: unknown) => this.deps.logger.warn('team batches: lease renewal failed', { error: String(error) }));
    }, Math.max(50, this.deps.leaseMs / 3));
    this.renewTimer.unref();
    this.loop = this.runLoop();
  }

  /** Starts the next round now (a batch created or cancelled here, a row finished). */
  wake(): void {
    // A wake during a round is kept for the end of it: the round may have claimed before a slot freed.
    this.woken = true;
    this.wakeUp?.();
  }

  private async runLoop(): Promise<void> {
    while (!this.closed) {
      let more = false;
      this.woken = false;
      try {
        more = await this.round();
      } catch (error) {
        this.deps.logger.warn('team batches: a round failed; retrying', { error: String(error) });
      }
      if (this.closed) return;
      if (this.woken) more = true;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, more ? 0 : (this.deps.idleMs ?? 500));
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = null;
    }
  }

  /**
   * One round; true when it filled every free slot (more rows may be waiting). A round runs after
   * every finished row, so it asks little while rows keep coming: one claim; the batch-level
   * checks (stopped batches, finalization) run when the claim came up short, or every CHECK_MS.
   */
  private async round(): Promise<boolean> {
    const { tables } = this.deps;
    const checkDue = Date.now() - this.lastCheck >= CHECK_MS;
    if (checkDue) await this.stopEnded();
    const free = this.deps.concurrency - this.running.size;
    const rows = free > 0 && !this.closed ? await tables.claimRows(this.owner, free, this.deps.leaseMs, this.now()) : [];
    for (const row of rows) this.startRow(row);
    if (rows.length === free && !checkDue) return free > 0;
    this.lastCheck = Date.now();
    const due = await tables.claimFinalization(this.owner, this.deps.leaseMs, this.now());
    if (due === undefined) return free > 0 && rows.length === free;
    // Rows of this batch still running here stop now: the batch takes no more rows.
    for (const run of this.running.values()) if (run.batchId === due.record.id) run.abort.abort(new Error(`batch ${due.ending}`));
    // The batch lease is renewed with the row leases while the files are written (a large batch takes a while).
    this.finalizing = true;
    const ended = await finalizeTeamBatch({ tables, files: this.deps.files, key: this.deps.key, ids: this.deps.ids, now: () => this.now() }, this.owner, due.record, due.ending).finally(() => {
      this.finalizing = false;
    });
    if (!ended) this.deps.logger.warn('team batches: lost the batch lease while finalizing; another instance finishes it', { batch_id: due.record.id });
    await this.endTask(due.record.id);
    return true;
  }

  /** Aborts rows whose batch stopped taking rows, and closes the dashboard line of batches that ended. */
  private async stopEnded(): Promise<void> {
    const batchIds = new Set([...[...this.running.values()].map((run) => run.batchId), ...this.tasks.keys()]);
    if (batchIds.size === 0) return;
    const stopped = await this.deps.tables.stopped([...batchIds]);
    for (const run of this.running.values()) if (stopped.has(run.batchId)) run.abort.abort(new Error('batch stopped'));
    for (const id of stopped) {
      const record = await this.deps.tables.get(id);
      if (record === undefined || TERMINAL_STATUSES.has(record.status)) await this.endTask(id, record);
    }
  }

  private startRow(row: ClaimedRow): void {
    const abort = new AbortController();
    const name = `${row.batchId}:${row.index}`;
    const done = this.runRow(row, abort.signal)
      .catch((error: unknown) => this.deps.logger.error('team batches: a row failed to run; it runs again after its lease', { batch_id: row.batchId, index: row.index, error: String(error) }))
      .finally(() => {
        this.running.delete(name);
        this.wake();
      });
    this.running.set(name, { batchId: row.batchId, abort, done });
  }

  private async record(batchId: string): Promise<BatchRecord | undefined> {
    const cached = this.records.get(batchId);
    if (cached !== undefined) return cached;
    const record = await this.deps.tables.get(batchId);
    if (record !== undefined) this.records.set(batchId, record);
    return record;
  }

  private async runRow(row: ClaimedRow, signal: AbortSignal): Promise<void> {
    const record = await this.record(row.batchId);
    if (record === undefined || this.ports === null) return;
    const execute = this.ports.executes[record.endpoint];
    if (execute === undefined) {
      await this.deps.tables.fail(record.id, [{ code: 'VALIDATION_4007', message: `The endpoint ${record.endpoint} is not served by this gateway.`, line: null, param: null }]);
      return;
    }
    const { key, ids } = this.deps;
    const body = JSON.parse(unseal(key, row.body, row.batchId).toString('utf8')) as Record<string, unknown>;
    const out = await rowOutput(execute, { custom_id: row.customId, body }, batchPrincipal(record), signal, ids);
    if (out === null) return;
    const errored = out.error !== null;
    const recorded = await this.deps.tables.complete(this.owner, row, seal(key, Buffer.from(JSON.stringify(out)), row.batchId), errored);
    if (recorded) this.progress(record, errored);
  }

  private progress(record: BatchRecord, errored: boolean): void {
    let task = this.tasks.get(record.id);
    if (task === undefined) {
      const label = `${record.metadata?.['name'] ?? record.id} ${record.endpoint}`;
      task = { handle: this.ports!.tasks.startTask('batch', record.id, label, { total: record.total }), done: 0, failed: 0 };
      this.tasks.set(record.id, task);
    }
    task.done += 1;
    if (errored) task.failed += 1;
    task.handle.progress({ done: task.done, failed: task.failed });
  }

  private async endTask(batchId: string, known?: BatchRecord): Promise<void> {
    this.records.delete(batchId);
    const task = this.tasks.get(batchId);
    if (task === undefined) return;
    this.tasks.delete(batchId);
    // This instance's line counts its own rows: the total it ends with is what it ran, so a
    // completed line is not filled up to the batch's total (metrics count rows per instance).
    task.handle.progress({ total: task.done });
    const status = (known ?? (await this.deps.tables.get(batchId)))?.status;
    if (status === 'succeeded') task.handle.end('completed');
    else if (status === 'cancelled') task.handle.end('cancelled', status);
    else if (status === 'failed' || status === 'expired') task.handle.end('failed', status);
    else task.handle.end('completed', 'this instance\'s rows are done');
  }

  /** Stops rows in flight (they are not done) and hands their leases back, so another instance runs them at once. */
  async close(): Promise<void> {
    this.closed = true;
    this.wake();
    if (this.renewTimer !== null) clearInterval(this.renewTimer);
    for (const run of this.running.values()) run.abort.abort(new Error('batch shutdown'));
    await Promise.all([...this.running.values()].map((run) => run.done));
    await this.loop;
    await this.deps.tables.release(this.owner).catch((error: unknown) => this.deps.logger.warn('team batches: leases not handed back; they expire', { error: String(error) }));
    for (const task of this.tasks.values()) task.handle.end('cancelled', 'paused; another instance goes on');
    this.tasks.clear();
  }
}
