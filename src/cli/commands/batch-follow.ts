import type { GatewayClient } from '../../client/gateway-client.js';
import { formatDuration, plural } from '../format.js';

/** The batch object as the CLI reads it. */
export interface BatchView {
  id: string;
  status: string;
  endpoint: string;
  input_file_id: string;
  output_file_id: string | null;
  error_file_id: string | null;
  created_at: number;
  completed_at: number | null;
  expires_at: number;
  errors: { data: Array<{ code: string; message: string; line: number | null }> } | null;
  request_counts: { processing: number; succeeded: number; errored: number; total: number };
  metadata: Record<string, string> | null;
}

export const TERMINAL = new Set(['succeeded', 'failed', 'expired', 'cancelled']);

/** One progress observation: the batch plus what the CLI derives from successive polls. */
export interface BatchProgress {
  batch: BatchView;
  done: number;
  total: number;
  /** Rows per second since the first observation that saw rows finish; null until known. */
  rowsPerSecond: number | null;
  /** Seconds to go at that rate; null until known. */
  etaSeconds: number | null;
  elapsedSeconds: number;
}

/**
 * Exit code of `batch submit --wait` / `batch wait` once the batch is terminal (DESIGN §1,
 * README "Exit codes"): 0 only when every row succeeded, 3 when it finished with errored rows,
 * 4 when it failed or expired, 5 when it was cancelled.
 */
export function batchExitCode(batch: Pick<BatchView, 'status' | 'request_counts'>): number {
  switch (batch.status) {
    case 'succeeded':
      return batch.request_counts.errored > 0 ? 3 : 0;
    case 'failed':
    case 'expired':
      return 4;
    case 'cancelled':
      return 5;
    default:
      throw new Error(`batch status ${batch.status} is not terminal`);
  }
}

/** Rows a cancelled or expired batch never ran (the server lists them in the error file). */
export function rowsNotRun(batch: Pick<BatchView, 'status' | 'request_counts'>): number {
  if (batch.status !== 'cancelled' && batch.status !== 'expired') return 0;
  const counts = batch.request_counts;
  return Math.max(0, counts.total - counts.succeeded - counts.errored);
}

/** `batch_1 cancelled: 6 succeeded, 0 errored, 294 cancelled of 300 rows`. */
export function summaryLine(batch: BatchView): string {
  const counts = batch.request_counts;
  const notRun = rowsNotRun(batch);
  const parts = [`${counts.succeeded} succeeded`, `${counts.errored} errored`];
  if (notRun > 0) parts.push(`${notRun} ${batch.status === 'cancelled' ? 'cancelled' : 'not run (expired)'}`);
  return `${batch.id} ${batch.status}: ${parts.join(', ')} of ${plural(counts.total, 'row')}`;
}

/**
 * Polls GET /v1/batches/{id} until the batch is terminal, yielding an observation each time
 * something changed (status or counts). The rate is measured from the first poll, so a resumed
 * wait does not count rows finished before it started.
 */
export async function* followBatch(client: GatewayClient, id: string, options: { intervalMs?: number; now?: () => number; signal?: AbortSignal } = {}): AsyncGenerator<BatchProgress> {
  const intervalMs = options.intervalMs ?? 500;
  const now = options.now ?? Date.now;
  const startedAt = now();
  let baseline: { at: number; done: number } | null = null;
  let lastKey = '';
  for (;;) {
    const batch = await client.getJson<BatchView>(`/v1/batches/${encodeURIComponent(id)}`);
    const counts = batch.request_counts;
    const done = counts.succeeded + counts.errored;
    const total = counts.total ?? done + counts.processing;
    const at = now();
    baseline ??= { at, done };
    const seconds = (at - baseline.at) / 1000;
    const rowsPerSecond = seconds > 0 && done > baseline.done ? (done - baseline.done) / seconds : null;
    const etaSeconds = rowsPerSecond !== null && rowsPerSecond > 0 ? Math.max(0, total - done) / rowsPerSecond : null;
    const key = `${batch.status}|${counts.succeeded}|${counts.errored}`;
    if (key !== lastKey || TERMINAL.has(batch.status)) {
      lastKey = key;
      yield { batch, done, total, rowsPerSecond, etaSeconds, elapsedSeconds: (at - startedAt) / 1000 };
    }
    if (TERMINAL.has(batch.status)) return;
    if (options.signal?.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The plain (non-TTY) progress line: one per change, stable and greppable. */
export function progressLine(progress: BatchProgress): string {
  const { batch, done, total } = progress;
  const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
  const rate = progress.rowsPerSecond === null ? '-' : progress.rowsPerSecond.toFixed(1);
  const eta = progress.etaSeconds === null ? '-' : formatDuration(progress.etaSeconds);
  return `${batch.id} ${batch.status} ${done}/${total} (${percent}%) succeeded=${batch.request_counts.succeeded} errored=${batch.request_counts.errored} rows/s=${rate} eta=${eta}`;
}
