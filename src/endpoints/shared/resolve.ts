import type { ModelType } from '../../config/schema.js';
import type { ResolvedModel } from '../../catalog/catalog.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { RequestCall } from '../../http/request-call.js';
import type { ProviderAdapter } from '../../providers/types.js';
import type { TryRoutesOptions } from '../../routing/fallback.js';
import { routeKey } from '../../routing/health.js';
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
  const candidates = selectRoutes(resolved.model, resolved.flavor, call.app.config.providers, {
    ...routing,
    health: call.app.routeHealth.snapshotOf(resolved.model.routes.map((route) => routeKey({ providerId: route.provider, route }))),
  });
  call.app.ledger.preflight(call.account);
  return { resolved, candidates };
}

/** What every tryRoutes call site passes: the gateway's route health (backoff and sleep keep their defaults). */
export function fallbackOptions(call: RequestCall): TryRoutesOptions {
  return { health: call.app.routeHealth };
}

/**
 * Keeps the routes whose provider implements this endpoint, so a route that cannot serve it is
 * skipped instead of ending the fallback (e.g. an embeddings model with a chat-only provider).
 */
export function routesServing(call: RequestCall, candidates: CandidateRoute[], method: 'embed' | 'rerank' | 'generateImages', endpoint: string): CandidateRoute[] {
  const serving = candidates.filter((candidate) => {
    try {
      return typeof (call.app.providers.get(candidate.providerId) as ProviderAdapter)[method] === 'function';
    } catch {
      return false;
    }
  });
  if (serving.length === 0) throw new GatewayError('INFERENCE_3104', `No provider of this model serves ${endpoint}.`);
  return serving;
}
