/** Batch status values (spec "Batch status values"; DESIGN §5 lifecycle). */
export type BatchStatus = 'queued' | 'in_progress' | 'finalizing' | 'succeeded' | 'failed' | 'expired' | 'cancelling' | 'cancelled';

export const TERMINAL_STATUSES: ReadonlySet<BatchStatus> = new Set(['succeeded', 'failed', 'expired', 'cancelled']);
/** Statuses the runner picks up again after a restart. */
export const ACTIVE_STATUSES: ReadonlySet<BatchStatus> = new Set(['queued', 'in_progress', 'finalizing', 'cancelling']);

/** Endpoints a batch may target (spec "Batches" create body). */
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/embeddings', '/v1/images/generations'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

export interface BatchError {
  code: string;
  message: string;
  line: number | null;
  param: string | null;
}

/** What the gateway keeps about a batch (batches.json). */
export interface BatchRecord {
  id: string;
  account: string;
  /** The creating key and its scopes: rows run as that key would (outside its rate limit). */
  key_id: string;
  scopes: string[];
  endpoint: BatchEndpoint;
  input_file_id: string;
  completion_window: string;
  status: BatchStatus;
  output_file_id: string | null;
  error_file_id: string | null;
  errors: BatchError[] | null;
  created_at: number;
  in_progress_at: number | null;
  expires_at: number;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  /** Requests in the input file (counted at create). */
  total: number;
  succeeded: number;
  errored: number;
  metadata: Record<string, string> | null;
}

/** The wire object (spec "Batch object"); request_counts also carries OpenAI's total/completed/failed. */
export function batchObject(record: BatchRecord): Record<string, unknown> {
  const done = record.succeeded + record.errored;
  const active = !TERMINAL_STATUSES.has(record.status);
  return {
    id: record.id,
    object: 'batch',
    endpoint: record.endpoint,
    errors: record.errors === null ? null : { object: 'list', data: record.errors },
    input_file_id: record.input_file_id,
    completion_window: record.completion_window,
    status: record.status,
    output_file_id: record.output_file_id,
    error_file_id: record.error_file_id,
    created_at: record.created_at,
    in_progress_at: record.in_progress_at,
    expires_at: record.expires_at,
    finalizing_at: record.finalizing_at,
    completed_at: record.completed_at,
    failed_at: record.failed_at,
    expired_at: record.expired_at,
    cancelling_at: record.cancelling_at,
    cancelled_at: record.cancelled_at,
    request_counts: {
      processing: active ? Math.max(0, record.total - done) : 0,
      succeeded: record.succeeded,
      errored: record.errored,
      total: record.total,
      completed: record.succeeded,
      failed: record.errored,
    },
    metadata: record.metadata,
  };
}
