import { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorDialect } from '../errors/render.js';
import type { InferenceLog } from '../inference/scope.js';
import type { CallerAbort } from '../util/caller-abort.js';
import type { CallTiming } from './request-call.js';

/**
 * What the server keeps of one request/response exchange from arrival to the response's 'close':
 * what its request-log line needs (id, endpoint, caller, log fields, start), what its close does
 * (the client-gone abort, the deferred log line), and its timing. One class instance with a fixed
 * shape, reached from the response itself (ExchangeResponse), so the close listener is one
 * function shared by every request rather than a closure per request holding the whole `handle`
 * frame (request, response, headers, body) alive until the socket lets go (issue 18 item 3).
 *
 * It is the call's CallTiming too (startedAt, upstreamMs): one object fewer per request.
 */
export class Exchange implements CallTiming {
  /** performance.now() at arrival (x-igw-overhead-ms), and the time spent waiting on providers. */
  readonly startedAt: number;
  upstreamMs = 0;
  /** The route's path once matched ("/v1/vector_stores/{vector_store_id}"), else the request's own. */
  endpoint: string;
  dialect: ErrorDialect = 'gateway';
  /** Known once the key is: a request refused after that (429, 403) is still logged with its key. */
  keyId: string | null = null;
  account: string | null = null;
  /** Aborted when the client goes away before the answer is finished (set when a call starts). */
  abort: CallerAbort | undefined = undefined;
  /** The handler is done but the answer is still leaving: the log line is written on 'close'. */
  logOnClose = false;
  readonly log: InferenceLog = new LogFields();

  constructor(
    /** Clock ms at arrival: the log line's latency is measured on the app clock (tests freeze it). */
    readonly arrivedAt: number,
    readonly requestId: string,
    /** Headers every response of this exchange carries (request id, CORS, rate limits). */
    readonly headers: Record<string, string>,
    pathname: string,
  ) {
    this.startedAt = performance.now();
    this.endpoint = pathname;
  }
}

/**
 * The log fields a request's pipeline fills in, all present from the start (undefined until
 * learnt): the object keeps one map however many the pipeline sets, instead of one map
 * transition per field added to an empty literal. Readers use `?? default`, never `in`.
 */
class LogFields implements InferenceLog {
  model?: string | null;
  provider?: string | null;
  route?: string | null;
  input_tokens?: number;
  output_tokens?: number;
  eur?: string;
  energy?: string;
  paid_with?: string | null;
  energy_kwh?: number;
  carbon_g_co2?: number;
  stream?: boolean;
  error_code?: string | null;
  ignored_params?: string[];
}

/**
 * node:http's ServerResponse with a slot for its exchange (createServer's `ServerResponse`
 * option): the shared 'close' listener finds the exchange through `this`.
 */
export class ExchangeResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  exchange: Exchange | undefined = undefined;
}
