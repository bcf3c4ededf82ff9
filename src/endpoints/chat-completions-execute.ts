import type { Config } from '../config/load.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Vault } from '../vault/vault.js';
import { answerChat } from './chat-completions.js';
import { prepareChat, reportIgnored } from './chat-completions-prepare.js';
import { executeAs, type Execute, type ExecuteDeps } from './shared/execute.js';

export type { Execute, ExecuteResult } from './shared/execute.js';

/** What a batch row of /v1/chat/completions needs of the gateway: the pipeline's deps and a few more ports. */
export interface ChatExecuteDeps extends ExecuteDeps {
  config: Pick<Config, 'providers' | 'server'>;
  vault: Vault;
}

const ENDPOINT = { path: '/v1/chat/completions', scope: 'inference.chat' };

/**
 * `execute(input, principal, signal)` for POST /v1/chat/completions (ARCHITECTURE "Request
 * lifecycle": batch rows call the endpoint's execute, never fake HTTP). The same stages as a live
 * request — validation, blueprints, routing, capability and balance preflight, fallback, billing,
 * the request-log line — minus authentication (the batch was authorised at create; its scopes
 * are still checked) and streaming (a row gets one complete response). Blueprints load from the
 * vault only inline: a row carries no X-Vault-Key.
 */
export function chatCompletionsExecute(deps: ChatExecuteDeps): Execute {
  return (input, principal, signal) =>
    executeAs(deps, ENDPOINT, principal, signal, async (scope) => {
      if ((input as { stream?: unknown } | null)?.stream === true) throw new GatewayError('VALIDATION_4005', 'stream is not supported in a batch; leave it out.', { field: 'stream' });
      const prepared = await prepareChat(scope, { server: deps.config.server, access: { principal, headers: {}, vault: deps.vault } }, input);
      const answer = await answerChat(scope, prepared);
      reportIgnored({ log: scope.log }, prepared, answer.served);
      return answer.body;
    });
}
