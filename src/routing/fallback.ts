import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import type { CandidateRoute } from './select.js';

export interface Attempted<T> {
  result: T;
  candidate: CandidateRoute;
}

/**
 * Tries routes in order. A transient failure (provider error, timeout, provider rate limit)
 * moves on to the next route; anything else (bad request, content filter) stops at once.
 * One route that fails keeps its own code; when several all fail → INFERENCE_3103 with the list.
 * Backoff and route health arrive with the routing issue; this is the seam they plug into.
 */
export async function tryRoutes<T>(candidates: readonly CandidateRoute[], signal: AbortSignal, attempt: (candidate: CandidateRoute) => Promise<T>): Promise<Attempted<T>> {
  const failures: Array<{ provider: string; code: string; message: string }> = [];
  let lastError: GatewayError | undefined;
  for (const candidate of candidates) {
    if (signal.aborted) break;
    try {
      return { result: await attempt(candidate), candidate };
    } catch (error) {
      if (!isGatewayError(error) || !error.retryable || signal.aborted) throw error;
      lastError = error;
      failures.push({ provider: candidate.providerId, code: error.code, message: error.message });
    }
  }
  if (failures.length === 1 && lastError !== undefined) throw lastError;
  if (failures.length === 0) throw new GatewayError('SYSTEM_9003', 'The request was cancelled.');
  throw new GatewayError('INFERENCE_3103', `All ${failures.length} providers for this model failed; retry with backoff.`, { attempts: failures }, { cause: lastError });
}
