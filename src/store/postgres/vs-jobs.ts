import type pg from 'pg';

/** An ingestion job as the table keys it. */
export interface JobKey {
  storeId: string;
  fileId: string;
}

export const VS_JOBS_CHANNEL = 'igw_vs_jobs';

/**
 * Ingestion jobs in PostgreSQL (team mode, issue 19 item 2): one row per file waiting for or in
 * ingestion. An instance claims rows with a lease (`FOR UPDATE SKIP LOCKED`: two instances never
 * claim the same row), renews it while it works, and deletes the row when the file's status is
 * final. A row whose lease ran out (its instance died) is claimed again by another instance.
 */
export class VectorStoreJobs {
  constructor(
    private readonly pool: pg.Pool,
    /** This instance's name on the leases it holds. */
    readonly owner: string,
    private readonly leaseMs: number,
  ) {}

  /** Queues jobs (a job already queued stays as it is). */
  async add(jobs: readonly JobKey[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.pool.query('INSERT INTO igw_vs_jobs (store_id, file_id) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING', [
      jobs.map((job) => job.storeId),
      jobs.map((job) => job.fileId),
    ]);
  }

  /** Claims up to `limit` jobs nobody holds (never leased, or the lease ran out), oldest first. */
  async claim(limit: number): Promise<JobKey[]> {
    if (limit <= 0) return [];
    const { rows } = await this.pool.query<{ store_id: string; file_id: string }>(
      `UPDATE igw_vs_jobs SET lease_owner = $1, lease_until = clock_timestamp() + $2 * interval '1 millisecond'
       WHERE (store_id, file_id) IN (
         SELECT store_id, file_id FROM igw_vs_jobs WHERE lease_until IS NULL OR lease_until < clock_timestamp()
         ORDER BY queued_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING store_id, file_id`,
      [this.owner, this.leaseMs, limit],
    );
    return rows.map((row) => ({ storeId: row.store_id, fileId: row.file_id }));
  }

  /** Extends the leases this instance holds on `jobs`; returns those still held (a lost one must stop). */
  async renew(jobs: readonly JobKey[]): Promise<JobKey[]> {
    if (jobs.length === 0) return [];
    const { rows } = await this.pool.query<{ store_id: string; file_id: string }>(
      `UPDATE igw_vs_jobs SET lease_until = clock_timestamp() + $2 * interval '1 millisecond'
       WHERE lease_owner = $1 AND (store_id, file_id) IN (SELECT * FROM unnest($3::text[], $4::text[]))
       RETURNING store_id, file_id`,
      [this.owner, this.leaseMs, jobs.map((job) => job.storeId), jobs.map((job) => job.fileId)],
    );
    return rows.map((row) => ({ storeId: row.store_id, fileId: row.file_id }));
  }

  /** The job is done (its file's status is final): removed, if this instance still holds it. */
  async finish(job: JobKey): Promise<void> {
    await this.pool.query('DELETE FROM igw_vs_jobs WHERE store_id = $1 AND file_id = $2 AND lease_owner = $3', [job.storeId, job.fileId, this.owner]);
  }

  /** Hands a job back unfinished (shutdown): another instance may claim it at once. */
  async release(jobs: readonly JobKey[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.pool.query(
      'UPDATE igw_vs_jobs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1 AND (store_id, file_id) IN (SELECT * FROM unnest($2::text[], $3::text[]))',
      [this.owner, jobs.map((job) => job.storeId), jobs.map((job) => job.fileId)],
    );
  }

  /** Removes a job whoever holds it (file detached, batch cancelled, store deleted). */
  async cancel(job: JobKey): Promise<void> {
    await this.pool.query('DELETE FROM igw_vs_jobs WHERE store_id = $1 AND file_id = $2', [job.storeId, job.fileId]);
  }

  /** Jobs of every instance: `running` under a live lease, `queued` otherwise (never claimed, or its lease ran out). */
  async countByState(): Promise<Record<string, number>> {
    const { rows } = await this.pool.query<{ running: string; queued: string }>(
      'SELECT count(*) FILTER (WHERE lease_until > clock_timestamp()) AS running, count(*) FILTER (WHERE lease_until IS NULL OR lease_until <= clock_timestamp()) AS queued FROM igw_vs_jobs',
    );
    return { queued: Number(rows[0]!.queued), running: Number(rows[0]!.running) };
  }

  /** Jobs queued or running on any instance. */
  async pending(): Promise<number> {
    const { rows } = await this.pool.query<{ count: string }>('SELECT count(*) AS count FROM igw_vs_jobs');
    return Number(rows[0]!.count);
  }
}
