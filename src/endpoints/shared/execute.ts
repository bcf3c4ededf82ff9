import type { Principal } from '../../auth/authenticate.js';
import { requireScope } from '../../auth/scopes.js';
import type { Ledger } from '../../billing/ledger.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { renderError } from '../../errors/render.js';
import type { InferenceDeps, InferenceLog, InferenceScope } from '../../inference/index.js';
import { writeRequestLine, type RequestLineSink } from '../../inference/request-line.js';
import type { AccountRepository } from '../../store/accounts.js';
import type { IdGenerator } from '../../util/ids.js';

/** What an endpoint answered, without HTTP: the status and the JSON body (success or error envelope). */
export interface Executed {
  status: number;
  body: unknown;
  /** The request id of the call (its request-log line). */
  requestId: string;
}

/**
 * A batchable endpoint called directly (issue 18): the same validation, routing, capability
 * checks, billing and request-log line as a live request, with no HTTP objects. Batch rows use it.
 */
export type Execute = (input: unknown, principal: Principal, signal: AbortSignal) => Promise<Executed>;

/** What running an endpoint off HTTP needs of the gateway: the pipeline's deps, the payer's account, ids and the request log. */
export interface ExecuteDeps extends InferenceDeps {
  ledger: Pick<Ledger, 'preflight' | 'settle' | 'plan'>;
  store: { accounts: Pick<AccountRepository, 'get'>; requestLog: RequestLineSink['requestLog'] };
  activity: RequestLineSink['activity'];
  ids: IdGenerator;
}

/** The endpoint as its request-log line names it, and the key scope it needs. */
export interface ExecutedEndpoint {
  path: string;
  scope: string;
}

/**
 * Runs one call of `endpoint` for `principal` through `operate` (the endpoint's parse → pipeline
 * → answer body): no authentication (the caller authorised it — a batch at create) and no
 * per-minute rate limit (spec: batch requests sit outside it), but the key's scope is checked
 * and the account is read fresh so balances apply as they move. Errors become the endpoint's
 * envelope (gateway dialect, like its HTTP answer); one request-log line is written either way.
 */
export async function executeAs(deps: ExecuteDeps, endpoint: ExecutedEndpoint, principal: Principal, signal: AbortSignal, operate: (scope: InferenceScope) => Promise<unknown>): Promise<Executed> {
  const startedAt = deps.clock.now();
  const requestId = deps.ids.next('req_');
  const log: InferenceLog = {};
  let status = 200;
  let body: unknown;
  try {
    const account = deps.store.accounts.get(principal.account);
    if (account === undefined) throw new GatewayError('AUTH_1008', `The account "${principal.account}" of this call no longer exists.`);
    requireScope(principal.scopes, endpoint.scope);
    const { name: planName, plan } = deps.ledger.plan(account);
    const scope: InferenceScope = { deps, principal, account, planName, plan, requestId, signal, log, timing: { startedAt: performance.now(), upstreamMs: 0 } };
    body = await operate(scope);
  } catch (error) {
    // A call abandoned by its caller (a batch cancelled, expired or shut down) is not a fault worth a log line.
    if (!signal.aborted && (!(error instanceof GatewayError) || error.code === 'SYSTEM_9001')) {
      deps.logger.error('executed call failed unexpectedly', { request_id: requestId, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
    const rendered = renderError(error, 'gateway');
    log.error_code = (rendered.body as { error: { code: string } }).error.code;
    status = rendered.status;
    body = rendered.body;
  }
  const now = deps.clock.now();
  writeRequestLine({ requestLog: deps.store.requestLog, activity: deps.activity }, {
    time: now,
    requestId,
    endpoint: endpoint.path,
    keyId: principal.keyId,
    account: principal.account,
    status,
    latencyMs: now - startedAt,
    log,
  });
  return { status, body, requestId };
}
