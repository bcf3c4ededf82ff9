import type { AppContext } from '../app/context.js';
import type { RequestLogEntry } from '../store/request-log.js';
import type { CallLog, RequestCall } from './request-call.js';

/** Who a request was, when it got as far as presenting a valid key. */
export interface LoggedIdentity {
  keyId: string;
  account: string;
}

/**
 * One request-log line (DESIGN §4) and the dashboard's count of it: written by the HTTP server for
 * every request, and by work that answers outside it (batch rows run in process, MCP tool calls
 * of /v1/responses). Its own module, so those need not import the server and its route table.
 */
export function appendLog(app: AppContext, requestId: string, endpoint: string, call: RequestCall | undefined, log: CallLog, status: number, latencyMs: number, identity?: LoggedIdentity): void {
  const entry: RequestLogEntry = {
    time: new Date(app.clock.now()).toISOString(),
    request_id: requestId,
    key_id: call?.principal.keyId ?? identity?.keyId ?? null,
    account: call?.account.id ?? identity?.account ?? null,
    endpoint,
    model: log.model ?? null,
    provider: log.provider ?? null,
    route: log.route ?? null,
    status,
    error_code: log.error_code ?? null,
    latency_ms: latencyMs,
    input_tokens: log.input_tokens ?? 0,
    output_tokens: log.output_tokens ?? 0,
    eur: log.eur ?? '0',
    energy: log.energy ?? '0',
    paid_with: log.paid_with ?? null,
    energy_kwh: log.energy_kwh ?? 0,
    carbon_g_co2: log.carbon_g_co2 ?? 0,
    stream: log.stream ?? false,
    ...(log.ignored_params === undefined ? {} : { ignored_params: log.ignored_params }),
  };
  app.store.requestLog.append(entry);
  app.activity.recordRequest(entry);
}
