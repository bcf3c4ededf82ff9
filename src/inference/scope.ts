import type { Principal } from '../auth/authenticate.js';
import type { Ledger } from '../billing/ledger.js';
import type { Catalog } from '../catalog/catalog.js';
import type { Config } from '../config/load.js';
import type { PlanConfig } from '../config/schema.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { RouteHealth } from '../routing/health.js';
import type { CallerAbort } from '../util/caller-abort.js';
import type { AccountRecord } from '../store/accounts.js';
import type { RequestLogEntry } from '../store/request-log.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

/**
 * What the pipeline needs of the gateway: the narrow set of services, not the whole app context
 * (issue 18 item 2). The composition root's AppContext satisfies it as is.
 */
export interface InferenceDeps {
  config: Pick<Config, 'providers'>;
  catalog: Pick<Catalog, 'resolve'>;
  providers: Pick<ProviderRegistry, 'get'>;
  routeHealth: RouteHealth;
  ledger: Pick<Ledger, 'preflight' | 'settle'>;
  clock: Clock;
  logger: Logger;
}

/** What the request-log line of this call should say; the pipeline fills what it learns. */
export type InferenceLog = Partial<
  Pick<RequestLogEntry, 'model' | 'provider' | 'route' | 'input_tokens' | 'output_tokens' | 'eur' | 'energy' | 'paid_with' | 'energy_kwh' | 'carbon_g_co2' | 'stream' | 'error_code' | 'ignored_params'>
>;

/** performance.now() at arrival, and the time spent waiting on providers so far (x-igw-overhead-ms). */
export interface CallTiming {
  startedAt: number;
  upstreamMs: number;
}

/**
 * One inference call's scope: who pays, how to cancel, where the log fields and timing go, and
 * the services. A plain object — no HTTP request or response — so a live request
 * (http/request-call.ts `inferenceScope`), a batch row and an internal call build the same thing.
 * `log` and `timing` are shared by reference with whoever writes the request-log line.
 */
export interface InferenceScope {
  deps: InferenceDeps;
  principal: Principal;
  account: AccountRecord;
  planName: string;
  plan: PlanConfig;
  requestId: string;
  /** Aborted when the caller goes away: handed down to every upstream call. */
  signal: AbortSignal;
  /**
   * The same abort, cheap to watch, when the caller has one (a live request: `signal` is then
   * made only when read). Stages that only watch or hand it down take `abortWatchOf(scope)` (providers/types.ts).
   */
  abort?: CallerAbort;
  log: InferenceLog;
  timing: CallTiming;
}

/** Runs one provider call and books its duration as upstream time (not gateway overhead). */
export async function timeUpstream<T>(timing: CallTiming, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    timing.upstreamMs += performance.now() - started;
  }
}
