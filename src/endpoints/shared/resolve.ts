import type { ModelType } from '../../config/schema.js';
import type { ResolvedModel } from '../../catalog/catalog.js';
import type { RequestCall } from '../../http/request-call.js';
import type { TryRoutesOptions } from '../../routing/fallback.js';
import { selectRoutes, type CandidateRoute, type RouteOrder, type RoutingPreset } from '../../routing/select.js';

/** Model → routes → billing preflight: everything that must pass before anything goes upstream. */
export function prepareInference(
  call: RequestCall,
  requestedModel: string,
  types: readonly ModelType[],
  routing: { order?: RouteOrder; preset?: RoutingPreset | undefined } = {},
): { resolved: ResolvedModel; candidates: CandidateRoute[] } {
  const resolved = call.app.catalog.resolve(requestedModel, call.plan, call.planName, types);
  call.log.model = resolved.requested;
  const candidates = selectRoutes(resolved.model, resolved.flavor, call.app.config.providers, { ...routing, health: call.app.routeHealth.snapshot() });
  call.app.ledger.preflight(call.account);
  return { resolved, candidates };
}

/** What every tryRoutes call site passes: the gateway's route health (backoff and sleep keep their defaults). */
export function fallbackOptions(call: RequestCall): TryRoutesOptions {
  return { health: call.app.routeHealth };
}
