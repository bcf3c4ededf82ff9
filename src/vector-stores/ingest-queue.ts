import type { JobLease } from './contents.js';

/** A file waiting for ingestion, by store and file id. */
export interface IngestJob {
  storeId: string;
  fileId: string;
  /** Team mode: the lease this instance holds on the job (its commit lands only while held). */
  lease?: JobLease;
}

/**
 * Where ingestion jobs wait and who runs them: this process (IngestQueue, the data dir) or any
 * instance on the database, with leases (leased-ingest-jobs.ts, team mode).
 */
export interface IngestJobs {
  enqueue(...jobs: IngestJob[]): Promise<void>;
  /** Drops a job and stops it where it runs here; resolves once it has stopped. */
  cancel(job: IngestJob): Promise<void>;
  /** Resolves when no job waits or runs. */
  idle(): Promise<void>;
  /** Jobs by state (`queued`, `running`) for /metrics: this process's, or in team mode every instance's. */
  countByState(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export type IngestWorker = (job: IngestJob, signal: AbortSignal) => Promise<void>;

function keyOf(job: IngestJob): string {
  return `${job.storeId}\u0000${job.fileId}`;
}

/**
 * Runs ingestion off the request path, a few files at a time, in arrival order. The queue itself
 * is not persisted: the file records are (status `in_progress`), and the service re-enqueues them
 * at start-up, so a restart resumes where the previous process stopped.
 */
export class IngestQueue implements IngestJobs {
  /** Waiting jobs by key, in arrival order (taking the first and dropping any one are O(1)). */
  private readonly waiting = new Map<string, IngestJob>();
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly worker: IngestWorker,
    private readonly concurrency = 2,
    private readonly onError: (job: IngestJob, error: unknown) => void = () => undefined,
  ) {}

  async enqueue(...jobs: IngestJob[]): Promise<void> {
    for (const job of jobs) this.add(job);
  }

  add(job: IngestJob): void {
    const key = keyOf(job);
    if (this.closed || this.waiting.has(key) || this.running.has(key)) return;
    this.waiting.set(key, job);
    this.pump();
  }

  async countByState(): Promise<Record<string, number>> {
    return { queued: this.waiting.size, running: this.running.size };
  }

  /** Jobs waiting or running here. */
  get size(): number {
    return this.waiting.size + this.running.size;
  }

  /** Drops a waiting job and aborts a running one; resolves once it has stopped. */
  async cancel(job: IngestJob): Promise<void> {
    const key = keyOf(job);
    this.waiting.delete(key);
    const active = this.running.get(key);
    if (active !== undefined) {
      active.controller.abort(new Error('ingestion cancelled'));
      await active.done;
    }
  }

  /** Resolves when nothing waits or runs (tests, bench, shutdown). */
  idle(): Promise<void> {
    if (this.waiting.size === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.concurrency && this.waiting.size > 0) {
      const [key, job] = this.waiting.entries().next().value as [string, IngestJob];
      this.waiting.delete(key);
      const controller = new AbortController();
      const done = this.worker(job, controller.signal)
        .catch((error: unknown) => this.onError(job, error))
        .finally(() => {
          this.running.delete(key);
          this.pump();
          if (this.waiting.size === 0 && this.running.size === 0) {
            const waiters = this.idleWaiters;
            this.idleWaiters = [];
            for (const resolve of waiters) resolve();
          }
        });
      this.running.set(key, { controller, done });
    }
  }

  /** Stops taking work and aborts what runs: those files stay `in_progress` and resume at the next start. */
  async close(): Promise<void> {
    this.closed = true;
    this.waiting.clear();
    const active = [...this.running.values()];
    for (const { controller } of active) controller.abort(new Error('gateway shutting down'));
    await Promise.all(active.map(({ done }) => done));
  }
}
