import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../app/context.js';
import type { Principal } from '../auth/authenticate.js';
import type { PlanConfig } from '../config/schema.js';
import type { AccountRecord } from '../store/accounts.js';
import type { CallTiming, InferenceLog, InferenceScope } from '../inference/scope.js';
import type { CallerAbort } from '../util/caller-abort.js';

export type { CallTiming } from '../inference/scope.js';

/** What the request-log line of this call should say; endpoints and the pipeline fill what they learn. */
export type CallLog = InferenceLog;

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
  /** Aborted when the client goes away: handed down to the upstream call (made on first read: see `abort`). */
  signal: AbortSignal;
  /** The same abort, cheap to watch: what the inference pipeline hands down (util/caller-abort.ts). */
  abort: CallerAbort;
  /** Headers every response of this call carries (request id, rate limits). */
  headers: Record<string, string>;
  log: CallLog;
  /** performance.now() at arrival, and the time spent waiting on providers so far. */
  timing: CallTiming;
}


/** Gateway time so far, excluding the time spent waiting on providers (x-igw-overhead-ms). */
export function overheadMs(timing: CallTiming): string {
  return Math.max(0, performance.now() - timing.startedAt - timing.upstreamMs).toFixed(3);
}

/** The headers to send now: the call's own plus the overhead measured up to this moment. */
export function responseHeaders(call: RequestCall, extra: Record<string, string> = {}): Record<string, string> {
  return { ...call.headers, ...extra, 'x-igw-overhead-ms': overheadMs(call.timing) };
}

/**
 * The call as the inference pipeline sees it: a plain scope sharing this call's log fields,
 * timing and abort signal (so what the pipeline learns lands in this request's log line and
 * x-igw-overhead-ms), with the app context as its narrow deps. No HTTP objects cross over.
 */
export function inferenceScope(call: RequestCall): InferenceScope {
  return {
    deps: call.app,
    principal: call.principal,
    account: call.account,
    planName: call.planName,
    plan: call.plan,
    requestId: call.requestId,
    get signal() {
      return call.signal;
    },
    abort: call.abort,
    log: call.log,
    timing: call.timing,
  };
}

export type EndpointHandler = (call: RequestCall) => Promise<void>;
