import type { Principal } from '../../auth/authenticate.js';
import { requireScope } from '../../auth/scopes.js';
import type { Ledger } from '../../billing/ledger.js';
import { GatewayError, isGatewayError } from '../../errors/gateway-error.js';
import { renderError } from '../../errors/render.js';
import { requestLogEntry, type InferenceDeps, type InferenceLog, type InferenceScope } from '../../inference/index.js';
import type { AccountRepository } from '../../store/accounts.js';
import type { RequestLogEntry } from '../../store/request-log.js';
import type { IdGenerator } from '../../util/ids.js';

/** One call's answer: what a live request would have answered (success or error envelope), as data. */
export interface ExecuteResult {
  status: number;
  body: unknown;
  /** The request id of the call (its request-log line). */
  requestId: string;
}

/**
 * A batchable endpoint called directly (issue 18, ARCHITECTURE "Request lifecycle"): the same
 * stages as a live request with no HTTP objects and no rate limit (spec: batches sit outside it).
 */
export type Execute = (input: unknown, principal: Principal, signal: AbortSignal) => Promise<ExecuteResult>;

/** What running an endpoint off HTTP needs of the gateway: the pipeline's deps and a few more ports. */
export interface ExecuteDeps extends InferenceDeps {
  ledger: Pick<Ledger, 'preflight' | 'settle' | 'plan'>;
  /** Read fresh for every call, so balances apply as they move. */
  accounts: Pick<AccountRepository, 'get'>;
  ids: Pick<IdGenerator, 'next'>;
  /** Where the call's request-log line goes (store/request-log, live activity). */
  recordLog(entry: RequestLogEntry): void;
}

/** The endpoint as its request-log line names it, and the key scope it needs. */
export interface ExecutedEndpoint {
  path: string;
  scope: string;
}

/**
 * Runs one call of `endpoint` for `principal` through `operate` (the endpoint's parse → pipeline
 * → answer body): no authentication (the caller authorised it — a batch at create) but the key's
 * scope is checked and the account read fresh. Errors become the endpoint's envelope (gateway
 * dialect, as its HTTP answer); one request-log line is written either way.
 */
export async function executeAs(deps: ExecuteDeps, endpoint: ExecutedEndpoint, principal: Principal, signal: AbortSignal, operate: (scope: InferenceScope) => Promise<unknown>): Promise<ExecuteResult> {
  const startedAt = deps.clock.now();
  const requestId = deps.ids.next('req_');
  const log: InferenceLog = {};
  const finish = (status: number, body: unknown): ExecuteResult => {
    const now = deps.clock.now();
    deps.recordLog(requestLogEntry(now, requestId, endpoint.path, { keyId: principal.keyId, account: principal.account }, log, status, now - startedAt));
    return { status, body, requestId };
  };
  try {
    requireScope(principal.scopes, endpoint.scope);
    const account = deps.accounts.get(principal.account);
    if (account === undefined) throw new GatewayError('AUTH_1008', `The account "${principal.account}" of this call no longer exists.`);
    const { name: planName, plan } = deps.ledger.plan(account);
    const scope: InferenceScope = { deps, principal, account, planName, plan, requestId, signal, log, timing: { startedAt: performance.now(), upstreamMs: 0 } };
    return finish(200, await operate(scope));
  } catch (error) {
    // A call abandoned by its caller (a batch cancelled, expired or shut down) is not a fault worth a log line.
    if (!signal.aborted && (!isGatewayError(error) || error.code === 'SYSTEM_9001')) {
      deps.logger.error('executed call failed unexpectedly', { request_id: requestId, endpoint: endpoint.path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
    const rendered = renderError(error, 'gateway');
    log.error_code = (rendered.body as { error: { code: string } }).error.code;
    return finish(rendered.status, rendered.body);
  }
}
