import type { ResolvedModel } from '../../catalog/catalog.js';
import type { ModelType } from '../../config/schema.js';
import { inferenceScope, type RequestCall } from '../../http/request-call.js';
import { resolveTarget, routesServing as servingRoutes } from '../../inference/resolve.js';
import type { TryRoutesOptions } from '../../routing/fallback.js';
import type { CandidateRoute, RouteOrder, RoutingPreset } from '../../routing/select.js';

/**
 * The pipeline's resolve + preflight stage (inference/resolve.ts) for endpoints still written
 * against RequestCall. TODO(#18): embeddings, rerank, images and audio move onto inference/
 * directly (resolveTarget, routesServing, callWithFallback); then this goes.
 */
export function prepareInference(
  call: RequestCall,
  requestedModel: string,
  types: readonly ModelType[],
  routing: { order?: RouteOrder; preset?: RoutingPreset | undefined } = {},
): { resolved: ResolvedModel; candidates: CandidateRoute[] } {
  return resolveTarget(inferenceScope(call), requestedModel, types, routing);
}

/** What every tryRoutes call site passes: the gateway's route health (backoff and sleep keep their defaults). */
export function fallbackOptions(call: RequestCall): TryRoutesOptions {
  return { health: call.app.routeHealth };
}

/** Keeps the routes whose provider implements this endpoint (inference/resolve.ts routesServing). */
export function routesServing(call: RequestCall, candidates: CandidateRoute[], method: 'embed' | 'rerank' | 'generateImages', endpoint: string): CandidateRoute[] {
  return servingRoutes(inferenceScope(call), candidates, method, endpoint);
}
