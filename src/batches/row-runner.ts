import type { Principal } from '../auth/authenticate.js';
import type { BatchEndpoint } from './batch-record.js';

/** What one row's call answered: the status and JSON body a live request would have got. */
export interface BatchRowResult {
  status: number;
  /** The parsed JSON body (success or error envelope). */
  body: unknown;
  requestId: string;
}

/**
 * The port through which a batch runs a row (spec "Batches"): the endpoint's own validation,
 * routing, billing and request log, for the batch's principal, without HTTP. Never rejects: a
 * failure comes back as its error envelope. The composition root (app/gateway.ts) wires it;
 * the batch runner knows nothing of routes or endpoints.
 */
export type RunBatchRow = (endpoint: BatchEndpoint, principal: Principal, body: unknown, signal: AbortSignal) => Promise<BatchRowResult>;
