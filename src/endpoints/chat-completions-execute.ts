import type { Principal } from '../auth/authenticate.js';
import { requireScope } from '../auth/scopes.js';
import type { Ledger } from '../billing/ledger.js';
import type { Config } from '../config/load.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { renderError } from '../errors/render.js';
import { requestLogEntry, type InferenceDeps, type InferenceLog, type InferenceScope } from '../inference/index.js';
import type { AccountRepository } from '../store/accounts.js';
import type { RequestLogEntry } from '../store/request-log.js';
import type { IdGenerator } from '../util/ids.js';
import type { Vault } from '../vault/vault.js';
import { answerChat } from './chat-completions.js';
import { prepareChat, reportIgnored } from './chat-completions-prepare.js';

/** What a batch row of /v1/chat/completions needs of the gateway: the pipeline's deps and a few more ports. */
export interface ChatExecuteDeps extends InferenceDeps {
  config: Pick<Config, 'providers' | 'server'>;
  ledger: Pick<Ledger, 'preflight' | 'settle' | 'plan'>;
  /** Read fresh for every row, so balances apply as they move. */
  accounts: Pick<AccountRepository, 'get'>;
  vault: Vault;
  ids: Pick<IdGenerator, 'next'>;
  /** Where the row's request-log line goes (store/request-log, live activity). */
  recordLog(entry: RequestLogEntry): void;
}

/** One row's answer: what a live request would have answered (success or error envelope), as data. */
export interface ExecuteResult {
  status: number;
  body: unknown;
  requestId: string;
}

/** A batchable endpoint's entry for batch rows: no HTTP objects, no rate limit (spec: batches sit outside it). */
export type Execute = (input: unknown, principal: Principal, signal: AbortSignal) => Promise<ExecuteResult>;

const ENDPOINT = '/v1/chat/completions';

/**
 * `execute(input, principal, signal)` for POST /v1/chat/completions (ARCHITECTURE "Request
 * lifecycle": batch rows call the endpoint's execute, never fake HTTP). The same stages as a live
 * request — validation, blueprints, routing, capability and balance preflight, fallback, billing,
 * the request-log line — minus authentication (the batch was authorised at create; its scopes
 * are still checked) and streaming (a row gets one complete response). Blueprints load from the
 * vault only inline: a row carries no X-Vault-Key.
 */
export function chatCompletionsExecute(deps: ChatExecuteDeps): Execute {
  return async (input, principal, signal) => {
    const startedAt = deps.clock.now();
    const requestId = deps.ids.next('req_');
    const log: InferenceLog = {};
    let caller = { keyId: principal.keyId, account: principal.account };
    const finish = (status: number, body: unknown): ExecuteResult => {
      deps.recordLog(requestLogEntry(deps.clock.now(), requestId, ENDPOINT, caller, log, status, deps.clock.now() - startedAt));
      return { status, body, requestId };
    };
    try {
      requireScope(principal.scopes, 'inference.chat');
      if ((input as { stream?: unknown } | null)?.stream === true) throw new GatewayError('VALIDATION_4005', 'stream is not supported in a batch; leave it out.', { field: 'stream' });
      const account = deps.accounts.get(principal.account);
      if (account === undefined) throw new GatewayError('AUTH_1008', `The batch's account "${principal.account}" no longer exists.`);
      caller = { keyId: principal.keyId, account: account.id };
      const { name: planName, plan } = deps.ledger.plan(account);
      const scope: InferenceScope = { deps, principal, account, planName, plan, requestId, signal, log, timing: { startedAt: performance.now(), upstreamMs: 0 } };
      const prepared = await prepareChat(scope, { server: deps.config.server, access: { principal, headers: {}, vault: deps.vault } }, input);
      const answer = await answerChat(scope, prepared);
      reportIgnored({ log }, prepared, answer.served);
      return finish(200, answer.body);
    } catch (error) {
      // A row abandoned by a stop (cancel, expiry, shutdown) is not a fault worth a log line.
      if (!signal.aborted && !isGatewayError(error)) {
        deps.logger.error('batch row failed unexpectedly', { request_id: requestId, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      }
      const rendered = renderError(error, 'gateway');
      log.error_code = (rendered.body as { error: { code: string } }).error.code;
      return finish(rendered.status, rendered.body);
    }
  };
}
