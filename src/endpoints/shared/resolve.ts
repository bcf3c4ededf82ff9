import type { ModelType } from '../../config/schema.js';
import type { ResolvedModel } from '../../catalog/catalog.js';
import type { RequestCall } from '../../http/request-call.js';
import { selectRoutes, type CandidateRoute, type RouteOrder } from '../../routing/select.js';

/** Model → routes → billing preflight: everything that must pass before anything goes upstream. */
export function prepareInference(call: RequestCall, requestedModel: string, types: readonly ModelType[], order: RouteOrder = 'priority'): { resolved: ResolvedModel; candidates: CandidateRoute[] } {
  const resolved = call.app.catalog.resolve(requestedModel, call.plan, call.planName, types);
  call.log.model = resolved.requested;
  const candidates = selectRoutes(resolved.model, resolved.flavor, call.app.config.providers, order);
  call.app.ledger.preflight(call.account);
  return { resolved, candidates };
}
