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

/**
 * The headers to send now: the call's own plus the overhead measured up to this moment. Copied
 * key by key rather than spread: on these header records V8's object spread took ~3 µs a
 * response, the loop ~0.3 µs (issue 18 item 3); the result is the same object, keys in the same order.
 */
export function responseHeaders(call: RequestCall, extra?: Record<string, string>): Record<string, string> {
  const headers = copyHeaders({}, call.headers);
  if (extra !== undefined) copyHeaders(headers, extra);
  headers['x-igw-overhead-ms'] = overheadMs(call.timing);
  return headers;
}

/** Sets each of `source`'s headers on `target` (what `{ ...target, ...source }` would hold), and returns `target`. */
export function copyHeaders(target: Record<string, string>, source: Readonly<Record<string, string>>): Record<string, string> {
  for (const name in source) target[name] = source[name]!;
  return target;
}

/**
 * The call as the inference pipeline sees it: a plain scope sharing this call's log fields,
 * timing and abort signal (so what the pipeline learns lands in this request's log line and
 * x-igw-overhead-ms), with the app context as its narrow deps. No HTTP objects cross over.
 */
export function inferenceScope(call: RequestCall): InferenceScope {
  return new CallScope(call);
}

/**
 * A class, not an object literal with `get signal()`: V8 gives a literal with an accessor a
 * dictionary (slow-mode) map, so each request paid a NameDictionary, an AccessorPair and a getter
 * closure that lived as long as the call and were promoted under load (issue 18 item 3). Here the
 * getter sits once on the prototype and the instance stays in fast mode.
 */
class CallScope implements InferenceScope {
  readonly deps: InferenceScope['deps'];
  readonly principal: Principal;
  readonly account: AccountRecord;
  readonly planName: string;
  readonly plan: PlanConfig;
  readonly requestId: string;
  readonly abort: CallerAbort;
  readonly log: InferenceLog;
  readonly timing: CallTiming;

  constructor(private readonly call: RequestCall) {
    this.deps = call.app;
    this.principal = call.principal;
    this.account = call.account;
    this.planName = call.planName;
    this.plan = call.plan;
    this.requestId = call.requestId;
    this.abort = call.abort;
    this.log = call.log;
    this.timing = call.timing;
  }

  /** Read lazily: the call's AbortSignal is made only when something asks for it. */
  get signal(): AbortSignal {
    return this.call.signal;
  }
}

/** What the server knows of a request once it is authenticated and its body read (the query still unparsed). */
export type RequestCallFields = Omit<RequestCall, 'signal' | 'query'> & { search: string };

/**
 * The RequestCall the server hands an endpoint. A class for the same reason as CallScope: the
 * lazy `signal` getter lives on the prototype, so the per-request object keeps a fast map.
 */
export class LiveRequestCall implements RequestCall {
  readonly app: AppContext;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly requestId: string;
  readonly params: Record<string, string>;
  readonly principal: Principal;
  readonly account: AccountRecord;
  readonly planName: string;
  readonly plan: PlanConfig;
  readonly body: unknown;
  readonly abort: CallerAbort;
  readonly headers: Record<string, string>;
  readonly log: CallLog;
  readonly timing: CallTiming;
  private readonly search: string;
  private parsedQuery: URLSearchParams | undefined = undefined;

  constructor(fields: RequestCallFields) {
    this.app = fields.app;
    this.request = fields.request;
    this.response = fields.response;
    this.requestId = fields.requestId;
    this.params = fields.params;
    this.search = fields.search;
    this.principal = fields.principal;
    this.account = fields.account;
    this.planName = fields.planName;
    this.plan = fields.plan;
    this.body = fields.body;
    this.abort = fields.abort;
    this.headers = fields.headers;
    this.log = fields.log;
    this.timing = fields.timing;
  }

  /** Made on first read (util/caller-abort.ts): most endpoints hand down `abort` instead. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Parsed on first read: the hot endpoints (chat, embeddings) take no query parameters. */
  get query(): URLSearchParams {
    this.parsedQuery ??= new URLSearchParams(this.search);
    return this.parsedQuery;
  }
}

export type EndpointHandler = (call: RequestCall) => Promise<void>;
