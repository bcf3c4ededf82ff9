import type { RequestLog, RequestLogEntry } from '../store/request-log.js';
import type { InferenceLog } from './scope.js';

/** Where request-log lines go: the append-only log (DESIGN §4) and the live activity feed (dashboard, metrics). */
export interface RequestLineSink {
  requestLog: Pick<RequestLog, 'append'>;
  activity: { recordRequest(entry: RequestLogEntry): void };
}

/** What one request-log line says besides the fields the pipeline filled (`log`). */
export interface RequestLine {
  /** Epoch milliseconds the line is dated at (the call's end). */
  time: number;
  requestId: string;
  /** The endpoint's path as routed (`/v1/embeddings`), or the work's own name for internal calls. */
  endpoint: string;
  keyId: string | null;
  account: string | null;
  status: number;
  latencyMs: number;
  log: InferenceLog;
}

/**
 * Stage "log": one request-log line from what the call learnt. The one builder for every
 * caller — live HTTP requests (http/server.ts), batch rows (endpoints' `execute`) and the
 * vector stores' internal model calls — so the line has the same shape whoever writes it.
 */
export function requestLogEntry(line: RequestLine): RequestLogEntry {
  const { log } = line;
  return {
    time: new Date(line.time).toISOString(),
    request_id: line.requestId,
    key_id: line.keyId,
    account: line.account,
    endpoint: line.endpoint,
    model: log.model ?? null,
    provider: log.provider ?? null,
    route: log.route ?? null,
    status: line.status,
    error_code: log.error_code ?? null,
    latency_ms: line.latencyMs,
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

/** Writes the line to the request log and reports it to the activity feed (one line, the key's name). */
export function writeRequestLine(sink: RequestLineSink, line: RequestLine): RequestLogEntry {
  const entry = requestLogEntry(line);
  sink.requestLog.append(entry);
  sink.activity.recordRequest(entry);
  return entry;
}
