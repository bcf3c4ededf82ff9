import type { Principal } from '../auth/authenticate.js';
import type { IdGenerator } from '../util/ids.js';
import type { BatchRecord } from './batch-record.js';
import type { OutputLine } from './results-log.js';

/**
 * Runs one row's body on its endpoint, in process and without HTTP: the endpoint's `execute`
 * (issue 18), a port wired at the composition root (app/gateway.ts). Same validation, routing, billing and request-log
 * line as a live request; the answer is {status, body} (success or error envelope).
 */
export type RowExecute = (body: unknown, principal: Principal, signal: AbortSignal) => Promise<{ status: number; body: unknown; requestId: string }>;

/** Rows run as the key that created the batch would (outside its rate limit). */
export function batchPrincipal(record: BatchRecord): Principal {
  return { keyId: record.key_id, account: record.account, scopes: record.scopes, vaultAccess: false };
}

export function errorLine(ids: IdGenerator, customId: string, code: string, message: string): OutputLine {
  return { id: ids.next('batch_req_'), custom_id: customId, response: null, error: { code, message } };
}

/** The error-file line of a row a cancelled or expired batch never ran (spec "Batch output line"). */
export function notRunLine(ids: IdGenerator, customId: string, code: 'batch_cancelled' | 'batch_expired'): OutputLine {
  const message = code === 'batch_cancelled' ? 'The batch was cancelled before this request ran.' : 'The batch expired before this request ran.';
  return errorLine(ids, customId, code, message);
}

/**
 * One row's output line, or null when a stop (cancel, expiry, shutdown) abandoned it: such a row
 * is not done and runs again on resume (or is listed as not run).
 */
export async function rowOutput(execute: RowExecute, row: { custom_id: string; body: Record<string, unknown> }, principal: Principal, signal: AbortSignal, ids: IdGenerator): Promise<OutputLine | null> {
  if (row.body['stream'] === true) return errorLine(ids, row.custom_id, 'VALIDATION_4005', 'stream is not supported in a batch; leave it out.');
  const result = await execute(row.body, principal, signal);
  const failed = result.status >= 400;
  if (failed && signal.aborted) return null;
  if (failed) {
    const error = (result.body as { error?: { code?: string; message?: string } }).error;
    return errorLine(ids, row.custom_id, error?.code ?? 'SYSTEM_9001', error?.message ?? `HTTP ${result.status}`);
  }
  return { id: ids.next('batch_req_'), custom_id: row.custom_id, response: { status_code: result.status, request_id: result.requestId, body: result.body }, error: null };
}
