import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { DEFAULT_BACKOFF, backoffDelayMs, type BackoffPolicy } from '../util/backoff.js';
import { systemClock, type Clock } from '../util/clock.js';
import { abortableSleep, type Sleep } from '../util/sleep.js';
import { signalOf, type AbortWatch } from '../util/caller-abort.js';
import { routeKey, type RouteHealth } from './health.js';
import { parseRetryAfterMs, retryAfterHeader } from './retry-after.js';
import type { CandidateRoute } from './select.js';

export interface Attempted<T> {
  result: T;
  candidate: CandidateRoute;
}

export interface TryRoutesOptions {
  /** Where failures and successful latencies are recorded; omitted = nothing is remembered. */
  health?: RouteHealth;
  /** How to wait between attempts; must reject or return early when the signal aborts. */
  sleep?: Sleep;
  /** Backoff between attempts (default: base 100 ms, cap 2 s, full jitter from Math.random). */
  backoff?: Partial<BackoffPolicy>;
  /** Times attempts and reads HTTP-date Retry-After; default the health's clock, else the system's. */
  clock?: Clock;
  /** Upper bound on attempts, same-route retry included (default: one per route, plus that retry). */
  maxAttempts?: number;
  /** Whether a model with one route gets one more try of it (see `worthRetryingSameRoute`); default true. */
  retrySingleRoute?: boolean;
}

interface Failure {
  provider: string;
  code: string;
  message: string;
}

/**
 * Tries routes in order (DESIGN §2: "Transient failures … fall through to the next route with
 * bounded exponential backoff"). A retryable GatewayError records the failure in route health,
 * waits and moves on; anything else (bad request, content filter, a bug) stops at once, as does a
 * client abort, which also cuts any wait short. Outcomes:
 * - success → `{result, candidate}`, its duration recorded as the route's latency (for streams the
 *   attempt resolves at the first chunk, so that is time to first token);
 * - failures on one route only (a single route, even when retried) → that route's own last error,
 *   which is more telling than "all providers failed" and keeps e.g. a 429's Retry-After;
 * - failures on several routes → INFERENCE_3103 with `details.attempts` [{provider, code, message}].
 */
export async function tryRoutes<T>(
  candidates: readonly CandidateRoute[],
  signal: AbortWatch,
  attempt: (candidate: CandidateRoute) => Promise<T>,
  options: TryRoutesOptions = {},
): Promise<Attempted<T>> {
  const clock = options.clock ?? options.health?.clock ?? systemClock;
  const retrySingleRoute = options.retrySingleRoute ?? true;
  const maxAttempts = Math.max(1, options.maxAttempts ?? candidates.length + (retrySingleRoute && candidates.length === 1 ? 1 : 0));

  // What only a failure needs is made at the first failure: most calls succeed at once, and a
  // search's query embedding runs through here (issue 16). Every route tried that did not return
  // failed, so the routes tried when this ends are the failed ones.
  let backoff: BackoffPolicy | undefined;
  const failures: Failure[] = [];
  let retryAfters: Array<number | undefined> | undefined;
  let routesTried: Set<string> | undefined;
  let lastError: GatewayError | undefined;
  let position = 0;
  let retriedSameRoute = false;

  while (!signal.aborted && position < candidates.length && failures.length < maxAttempts) {
    const candidate = candidates[position]!;
    const key = routeKey(candidate);
    const startedAt = clock.now();
    try {
      const result = await attempt(candidate);
      options.health?.recordSuccess(key, clock.now() - startedAt);
      return { result, candidate };
    } catch (error) {
      // Every provider fault is counted (metrics), retryable or not; a client abort is no fault.
      if (isGatewayError(error) && isRouteFault(error) && !signal.aborted) options.health?.attemptFailed(key, error.code);
      // An abort is the client's doing, not the route's: rethrow without blaming the route.
      if (!isGatewayError(error) || !error.retryable || signal.aborted) throw error;
      (routesTried ??= new Set()).add(key);
      backoff ??= { ...DEFAULT_BACKOFF, ...options.backoff };
      retryAfters ??= [];
      lastError = error;
      failures.push({ provider: candidate.providerId, code: error.code, message: error.message });
      const retryAfterMs = parseRetryAfterMs(retryAfterHeader(error.headers), clock.now());
      retryAfters.push(retryAfterMs);
      if (isRouteFault(error)) options.health?.recordFailure(key, retryAfterMs);

      if (candidates.length === 1 && retrySingleRoute && !retriedSameRoute && worthRetryingSameRoute(error, retryAfterMs, backoff.capMs)) {
        retriedSameRoute = true;
      } else {
        position += 1;
      }
      if (position >= candidates.length || failures.length >= maxAttempts) break;
      const waitMs = waitBeforeNextAttempt(failures.length - 1, retryAfterMs, backoff);
      if (waitMs > 0) {
        try {
          await (options.sleep ?? abortableSleep)(waitMs, signalOf(signal));
        } catch (sleepError) {
          if (!signal.aborted) throw sleepError;
        }
      }
    }
  }

  if (lastError === undefined) throw new GatewayError('SYSTEM_9003', 'The request was cancelled.');
  const routesCount = routesTried?.size ?? 0;
  if (signal.aborted || routesCount === 1) throw lastError;
  throw new GatewayError(
    'INFERENCE_3103',
    `All ${routesCount} providers for this model failed (${failures.length} attempts); retry with backoff.`,
    { attempts: failures },
    { cause: lastError, headers: commonRetryAfter(retryAfters ?? []) },
  );
}

/**
 * Spec retry rule: honour Retry-After. One the backoff cap can absorb is waited out exactly; a
 * longer one is not waited for at all (the route is cooling down in health, and holding the
 * client for it would be worse than trying the next route at once). Otherwise: full-jitter backoff.
 */
function waitBeforeNextAttempt(retryIndex: number, retryAfterMs: number | undefined, backoff: BackoffPolicy): number {
  if (retryAfterMs === undefined) return backoffDelayMs(retryIndex, backoff);
  return retryAfterMs <= backoff.capMs ? retryAfterMs : 0;
}

/**
 * Only upstream faults count against a route's health. Retryable gateway-side errors (SYSTEM_9xxx,
 * a key's own AUTH_1028) still move on to the next route, but say nothing about this one.
 */
function isRouteFault(error: GatewayError): boolean {
  return error.code.startsWith('INFERENCE_');
}

/**
 * When a model has one route, falling through leaves nothing to try, so some failures earn one
 * more try of that same route:
 * - INFERENCE_3105 from a 5xx, a refused or reset connection or an in-stream provider error: these
 *   are typically momentary (a restarting server, a load balancer hiccup).
 * - INFERENCE_3108 whose Retry-After is within the backoff cap: the provider said when to retry.
 * Not retried: timeouts (INFERENCE_3107: a second try would double the client's wait, up to the
 * provider's whole timeout), 3105 from a 4xx status (401/403/404: credentials or model config,
 * which a retry cannot fix) and 429s without a short Retry-After (the client sees the 429 and its
 * Retry-After instead, and backs off itself).
 */
export function worthRetryingSameRoute(error: GatewayError, retryAfterMs: number | undefined, capMs: number): boolean {
  if (error.code === 'INFERENCE_3105') {
    const upstreamStatus = error.details?.['upstream_status'];
    return typeof upstreamStatus !== 'number' || upstreamStatus >= 500;
  }
  if (error.code === 'INFERENCE_3108') return retryAfterMs !== undefined && retryAfterMs <= capMs;
  return false;
}

/** When every failure carried a Retry-After, the soonest one is when retrying can first succeed. */
function commonRetryAfter(retryAfters: ReadonlyArray<number | undefined>): Record<string, string> {
  if (retryAfters.length === 0 || retryAfters.some((value) => value === undefined)) return {};
  const soonestMs = Math.min(...(retryAfters as number[]));
  return { 'retry-after': String(Math.max(1, Math.ceil(soonestMs / 1000))) };
}
