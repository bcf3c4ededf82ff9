import type { TaskBoard } from '../app/activity.js';
import type { Principal } from '../auth/authenticate.js';
import type { BatchEndpoint, BatchRecord } from './batch-record.js';
import type { RowExecute } from './row-output.js';

/** What the runner needs once the gateway is up, wired by the composition root (app/gateway.ts). */
export interface BatchPorts {
  /** Each batchable endpoint's execute (endpoints/batch-executes.ts); a missing one fails its batches. */
  executes: Partial<Record<BatchEndpoint, RowExecute>>;
  /** The `igw serve` dashboard's task list. */
  tasks: TaskBoard;
}

export interface NewBatch {
  input_file_id: string;
  endpoint: BatchEndpoint;
  completion_window: string;
  metadata: Record<string, string> | null;
}

export interface BatchPage {
  data: BatchRecord[];
  has_more: boolean;
}

/** Rows of the batches not finished yet, by state (team mode's `/metrics` gauge). */
export interface BatchRowCounts {
  queued: number;
  running: number;
  succeeded: number;
  errored: number;
}

/**
 * The batches of spec "Batches" (DESIGN §5 lifecycle), as the endpoints and the composition root
 * see them. Two implementations, chosen in app/gateway.ts by the store kind: BatchService (JSON
 * store: records in the data dir, rows run in process from a sealed results log) and
 * TeamBatchService (PostgreSQL: records and rows in the database, rows claimed with leases by
 * every instance, issue 19 item 2).
 */
export interface Batches {
  /** Starts (or resumes) running rows; called once the endpoints' executes exist. */
  start(ports: BatchPorts): void;
  create(principal: Principal, batch: NewBatch): Promise<BatchRecord>;
  get(accountId: string, id: string): Promise<BatchRecord | undefined>;
  /** Newest first; `after` is the id of the last batch of the previous page. */
  list(accountId: string, options: { limit: number; after?: string }): Promise<BatchPage>;
  /** queued or in_progress → cancelling; runs stop, finished rows are kept, then cancelled. */
  cancel(accountId: string, id: string): Promise<BatchRecord>;
  /** Team mode only: rows of unfinished batches by state, across every instance. */
  rowCounts?(): Promise<BatchRowCounts>;
  /** Stops running rows (in-flight rows run again later) and saves. */
  close(): Promise<void>;
}
