import type { RequestLogEntry } from '../store/request-log.js';
import type { InferenceLog } from './scope.js';
import { isoTime } from '../util/iso-time.js';

/** Who made the call, for its log line (a call refused before its account was read still names the key's). */
export interface LoggedCaller {
  keyId: string | null;
  account: string | null;
}

/**
 * Stage "log": the request-log line of one call from what the stages noted in its log fields
 * (model, route, tokens, cost, impact, error code, ignored params), for callers that write the
 * line themselves (batch rows, internal calls); a live request's line is written by http/server.
 */
export function requestLogEntry(at: number, requestId: string, endpoint: string, caller: LoggedCaller, log: InferenceLog, status: number, latencyMs: number): RequestLogEntry {
  return {
    time: isoTime(at),
    request_id: requestId,
    key_id: caller.keyId,
    account: caller.account,
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
}
