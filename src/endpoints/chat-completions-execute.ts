import type { Config } from '../config/load.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Vault } from '../vault/vault.js';
import { answerChat } from './chat-completions.js';
import { prepareChat, reportIgnored } from './chat-completions-prepare.js';
import { executeAs, type Execute, type ExecuteDeps } from './shared/execute.js';

/** What chat needs besides the pipeline: server settings and the vault (blueprints and skills by id). */
export interface ChatExecuteDeps extends ExecuteDeps {
  config: ExecuteDeps['config'] & Pick<Config, 'server'>;
  store: ExecuteDeps['store'] & { vault: Vault };
}

/**
 * POST /v1/chat/completions without HTTP (batch rows): the same prepare → pipeline → JSON answer
 * as the live endpoint, as {status, body}. No headers travel: blueprints load by id with no
 * X-Vault-Key (as a live request without one), dropped fields are named in the log line only.
 */
export function chatCompletionsExecute(deps: ChatExecuteDeps): Execute {
  const endpoint = { path: '/v1/chat/completions', scope: 'inference.chat' };
  return (input, principal, signal) =>
    executeAs(deps, endpoint, principal, signal, async (scope) => {
      // An answer without a connection cannot stream (spec "Batches": the row's body is one JSON object).
      if ((input as { stream?: unknown } | null)?.stream === true) throw new GatewayError('VALIDATION_4005', 'stream is not supported here; leave it out.', { field: 'stream' });
      const prepared = await prepareChat(scope, { server: deps.config.server, access: { principal, headers: {}, vault: deps.store.vault } }, input);
      const answer = await answerChat(scope, prepared);
      reportIgnored({ log: scope.log }, prepared, answer.served);
      return answer.body;
    });
}
