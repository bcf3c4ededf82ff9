import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../app/context.js';
import type { Principal } from '../auth/authenticate.js';
import type { PlanConfig } from '../config/schema.js';
import type { AccountRecord } from '../store/accounts.js';
import type { RequestLogEntry } from '../store/request-log.js';

/** What the request-log line of this call should say; endpoints fill what they learn. */
export type CallLog = Partial<Pick<RequestLogEntry, 'model' | 'provider' | 'route' | 'input_tokens' | 'output_tokens' | 'eur' | 'energy' | 'paid_with' | 'energy_kwh' | 'carbon_g_co2' | 'stream' | 'error_code' | 'ignored_params'>>;

/** One authenticated request as endpoints see it. */
export interface RequestCall {
  app: AppContext;
  request: IncomingMessage;
  response: ServerResponse;
  requestId: string;
  params: Record<string, string>;
  query: URLSearchParams;
  principal: Principal;
  account: AccountRecord;
  planName: string;
  plan: PlanConfig;
  body: unknown;
  /** Aborted when the client goes away: handed down to the upstream call. */
  signal: AbortSignal;
  /** Headers every response of this call carries (request id, rate limits). */
  headers: Record<string, string>;
  log: CallLog;
  /** performance.now() at arrival, and the time spent waiting on providers so far. */
  timing: CallTiming;
}

export interface CallTiming {
  startedAt: number;
  upstreamMs: number;
}

/** Gateway time so far, excluding the time spent waiting on providers (x-igw-overhead-ms). */
export function overheadMs(timing: CallTiming): string {
  return Math.max(0, performance.now() - timing.startedAt - timing.upstreamMs).toFixed(3);
}

/** The headers to send now: the call's own plus the overhead measured up to this moment. */
export function responseHeaders(call: RequestCall, extra: Record<string, string> = {}): Record<string, string> {
  return { ...call.headers, ...extra, 'x-igw-overhead-ms': overheadMs(call.timing) };
}

/** Runs one provider call and books its duration as upstream time (not gateway overhead). */
export async function timeUpstream<T>(call: RequestCall, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    call.timing.upstreamMs += performance.now() - started;
  }
}

export type EndpointHandler = (call: RequestCall) => Promise<void>;
