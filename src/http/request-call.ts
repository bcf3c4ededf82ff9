import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../app/context.js';
import type { Principal } from '../auth/authenticate.js';
import type { PlanConfig } from '../config/schema.js';
import type { AccountRecord } from '../store/accounts.js';
import type { RequestLogEntry } from '../store/request-log.js';

/** What the request-log line of this call should say; endpoints fill what they learn. */
export type CallLog = Partial<Pick<RequestLogEntry, 'model' | 'provider' | 'route' | 'input_tokens' | 'output_tokens' | 'eur' | 'energy' | 'paid_with' | 'energy_kwh' | 'carbon_g_co2' | 'stream' | 'error_code'>>;

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
}

export type EndpointHandler = (call: RequestCall) => Promise<void>;
