import { BATCH_ENDPOINTS } from '../batches/batch-record.js';
import { callInProcess } from '../batches/in-process-call.js';
import type { RunBatchRow } from '../batches/row-runner.js';
import type { GatewayRoute } from '../http/routes.js';
import type { AppContext } from './context.js';

/**
 * The batch row port as wired today: each row runs through its endpoint's route handler in
 * process (batches/in-process-call.ts). TODO(#18): the endpoints' `execute(input, principal)` of
 * the inference pipeline replaces callInProcess here, and only here.
 */
export function inProcessRowRunner(app: AppContext, routes: readonly GatewayRoute[]): RunBatchRow {
  const byEndpoint = new Map<string, GatewayRoute>();
  for (const endpoint of BATCH_ENDPOINTS) {
    const route = routes.find((candidate) => candidate.method === 'POST' && candidate.path === endpoint);
    // A batchable endpoint missing from the route table is a build fault: refuse to start.
    if (route === undefined) throw new Error(`the route table serves no POST ${endpoint}, a batch endpoint`);
    byEndpoint.set(endpoint, route);
  }
  return (endpoint, principal, body, signal) => callInProcess(app, byEndpoint.get(endpoint)!, principal, body, signal);
}
