import type { VectorStoreJobs } from '../store/postgres/vs-jobs.js';
import type { Logger } from '../util/logger.js';
import { IngestQueue, type IngestJob, type IngestJobs, type IngestWorker } from './ingest-queue.js';

function keyOf(job: IngestJob): string {
  return `${job.storeId}\u0000${job.fileId}`;
}

/**
 * Ingestion jobs shared by every instance (team mode, issue 19 item 2). A job is a row in
 * PostgreSQL; each instance claims as many as it has free slots (a lease, see vs-jobs.ts), runs
 * them in its local IngestQueue, renews the leases while they run and deletes the row once the
 * file's status is final. It looks for work when a job is queued anywhere (NOTIFY) and every
 * half lease, which is how it takes over the jobs of an instance that died (their leases ran
 * out). A lease this instance lost (it stalled longer than the lease) stops the local run; the
 * commit itself checks the lease in its transaction, so a file is never committed twice.
 */
export class LeasedIngestJobs implements IngestJobs {
  private readonly queue: IngestQueue;
  /** Jobs this instance holds a lease on, by key. */
  private readonly held = new Map<string, IngestJob>();
  private claiming: Promise<void> | null = null;
  private claimAgain = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private closed = false;

  constructor(
    private readonly table: VectorStoreJobs,
    worker: IngestWorker,
    private readonly concurrency: number,
    leaseMs: number,
    private readonly logger: Logger,
    onError: (job: IngestJob, error: unknown) => void,
  ) {
    this.queue = new IngestQueue((job, signal) => this.run(worker, job, signal), concurrency, onError);
    const poll = setInterval(() => this.wake(), Math.max(50, Math.floor(leaseMs / 2)));
    const renew = setInterval(() => void this.renew(), Math.max(50, Math.floor(leaseMs / 3)));
    for (const timer of [poll, renew]) timer.unref();
    this.timers.push(poll, renew);
  }

  async enqueue(...jobs: IngestJob[]): Promise<void> {
    await this.table.add(jobs);
    this.wake();
  }

  /** Claims work now (a job was queued somewhere, or the poll came round). */
  wake(): void {
    if (this.closed) return;
    if (this.claiming !== null) {
      this.claimAgain = true;
      return;
    }
    this.claiming = (async () => {
      do {
        this.claimAgain = false;
        const claimed = await this.table.claim(this.concurrency - this.held.size);
        for (const job of claimed) {
          const leased: IngestJob = { ...job, lease: { owner: this.table.owner } };
          this.held.set(keyOf(job), leased);
          this.queue.add(leased);
        }
      } while (this.claimAgain && !this.closed);
    })()
      .catch((error: unknown) => this.logger.warn('vector store ingestion: claiming jobs failed; retried at the next poll', { error: String(error) }))
      .finally(() => (this.claiming = null));
  }

  private async run(worker: IngestWorker, job: IngestJob, signal: AbortSignal): Promise<void> {
    try {
      await worker(job, signal);
      // Stopped (shutdown, lost lease): the job stays for whoever claims it next.
      if (!signal.aborted && this.held.has(keyOf(job))) await this.table.finish(job);
    } finally {
      this.held.delete(keyOf(job));
      this.wake();
    }
  }

  private async renew(): Promise<void> {
    if (this.closed || this.held.size === 0) return;
    const jobs = [...this.held.values()];
    try {
      const kept = new Set((await this.table.renew(jobs)).map(keyOf));
      for (const job of jobs) {
        if (kept.has(keyOf(job)) || !this.held.has(keyOf(job))) continue;
        this.held.delete(keyOf(job));
        this.logger.warn('vector store ingestion: lease lost; another instance runs this file', { vector_store_id: job.storeId, file_id: job.fileId });
        void this.queue.cancel(job);
      }
    } catch (error) {
      this.logger.warn('vector store ingestion: renewing leases failed', { error: String(error) });
    }
  }

  async cancel(job: IngestJob): Promise<void> {
    await this.table.cancel(job);
    this.held.delete(keyOf(job));
    await this.queue.cancel(job);
  }

  countByState(): Promise<Record<string, number>> {
    return this.table.countByState();
  }

  /** Resolves when no job waits or runs on any instance (tests, bench). */
  async idle(): Promise<void> {
    for (;;) {
      await this.queue.idle();
      if (this.closed || (this.held.size === 0 && (await this.table.pending()) === 0)) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Stops: running files are aborted and their leases handed back, so another instance takes them at once. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    await this.claiming;
    const held = [...this.held.values()];
    await this.queue.close();
    await this.table.release(held).catch((error: unknown) => this.logger.warn('vector store ingestion: could not hand back leases', { error: String(error) }));
  }
}
