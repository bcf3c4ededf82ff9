import type { ResolvedModel } from '../catalog/catalog.js';
import type { ModelType } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { CallContext, ProviderAdapter } from '../providers/types.js';
import { selectRoutes, type CandidateRoute, type RouteOrder, type RoutingPreset } from '../routing/select.js';
import { preflightBalance } from './preflight.js';
import type { InferenceScope } from './scope.js';
import { targetCacheOf } from './target-cache.js';

/** Per-model facts every adapter call of this target carries (CallContext hints). */
export type ModelHints = Pick<CallContext, 'maxOutputTokens' | 'reasoning'>;

/** A resolved model, its routes best first, and the hints its adapter calls carry. */
export interface Target {
  resolved: ResolvedModel;
  candidates: CandidateRoute[];
  hints: ModelHints;
}

export { modelReasons } from './target-cache.js';

/**
 * Stages "resolve" and "preflight (balances)": the model as the plan sees it, its routes ranked
 * with the live route health (DESIGN §2), then the payer's balance — everything that must pass
 * before anything goes upstream. Logs the requested model name. What depends only on config,
 * plan and model is one lookup (target-cache.ts); the live health is consulted on every call.
 */
export function resolveTarget(
  scope: InferenceScope,
  requestedModel: string,
  types: readonly ModelType[],
  routing: { order?: RouteOrder; preset?: RoutingPreset | undefined } = {},
): Target {
  const { deps } = scope;
  const known = targetCacheOf(deps.catalog, deps.config.providers).lookup(requestedModel, scope.plan, scope.planName, types, routing);
  const resolved = known.resolved;
  scope.log.model = resolved.requested;
  // No route cooling and no latency ranking: the live order is the cached one.
  const candidates =
    known.byLatency || deps.routeHealth.anyCoolingDown(known.keys)
      ? selectRoutes(resolved.model, resolved.flavor, deps.config.providers, { ...routing, health: deps.routeHealth.snapshotOf(known.keys) })
      : known.ranked;
  preflightBalance(scope);
  return { resolved, candidates, hints: known.hints };
}

/**
 * Keeps the routes whose provider implements this operation, so a route that cannot serve it is
 * skipped instead of ending the fallback (e.g. an embeddings model with a chat-only provider).
 */
export function routesServing(
  scope: InferenceScope,
  candidates: readonly CandidateRoute[],
  method: keyof Pick<ProviderAdapter, 'embed' | 'rerank' | 'generateImages' | 'transcribe' | 'messages' | 'responses'>,
  endpoint: string,
): CandidateRoute[] {
  // Usually every route serves: the list is then handed on as it is (callers only read it), with
  // no filtered copy or closure per call (a search's query embedding comes through here, issue 16).
  let serving: CandidateRoute[] | undefined;
  for (let index = 0; index < candidates.length; index++) {
    const candidate = candidates[index]!;
    if (serves(scope, candidate, method)) {
      serving?.push(candidate);
    } else {
      serving ??= candidates.slice(0, index);
    }
  }
  serving ??= candidates as CandidateRoute[];
  if (serving.length === 0) throw new GatewayError('INFERENCE_3104', `No provider of this model serves ${endpoint}.`);
  return serving;
}

function serves(scope: InferenceScope, candidate: CandidateRoute, method: keyof ProviderAdapter): boolean {
  try {
    return typeof scope.deps.providers.get(candidate.providerId)[method] === 'function';
  } catch {
    return false;
  }
}
