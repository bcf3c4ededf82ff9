/**
 * Work that lives in the store and is done by whichever instance claims it (issue 19 items 2 and
 * 4): batch rows and vector-store ingestion jobs. The service that keeps such work counts its
 * items by state on each scrape — from the data dir, or in team mode from PostgreSQL, so every
 * instance's /metrics shows the team's queue (a gauge of what is stored now, unlike the
 * per-instance counters of what this process did).
 */
export type WorkKind = 'batch_row' | 'ingestion_job';

/** One gauge per kind, labelled by state. */
export const WORK_GAUGES: Readonly<Record<WorkKind, { name: string; help: string }>> = {
  batch_row: { name: 'igw_batch_rows', help: 'Rows of unfinished batches in the store, by state (team mode: across every instance; queued, running under a lease, succeeded, errored).' },
  ingestion_job: { name: 'igw_ingestion_jobs', help: 'Vector-store ingestion jobs in the store, by state (team mode: across every instance).' },
};

export interface WorkStateSource {
  /** Items of this kind by state right now (e.g. `{queued: 3, running: 1}`); states absent count 0. */
  countByState(): Promise<Readonly<Record<string, number>>>;
}
