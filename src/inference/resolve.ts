import type { ResolvedModel } from '../catalog/catalog.js';
import type { ModelType } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { CallContext, ProviderAdapter } from '../providers/types.js';
import { routeKey } from '../routing/health.js';
import { selectRoutes, type CandidateRoute, type RouteOrder, type RoutingPreset } from '../routing/select.js';
import { preflightBalance } from './preflight.js';
import type { InferenceScope } from './scope.js';

/** Per-model facts every adapter call of this target carries (CallContext hints). */
export type ModelHints = Pick<CallContext, 'maxOutputTokens' | 'reasoning'>;

/** A resolved model, its routes best first, and the hints its adapter calls carry. */
export interface Target {
  resolved: ResolvedModel;
  candidates: CandidateRoute[];
  hints: ModelHints;
}

/** Whether the model reasons (reasoning_type or capabilities.reasoning), for hints and surfaces. */
export function modelReasons(resolved: ResolvedModel): boolean {
  return resolved.model.reasoning_type !== 'non_reasoning' || resolved.model.capabilities.reasoning === true;
}

/**
 * Stages "resolve" and "preflight (balances)": the model as the plan sees it, its routes ranked
 * with the live route health (DESIGN §2), then the payer's balance — everything that must pass
 * before anything goes upstream. Logs the requested model name.
 */
export function resolveTarget(
  scope: InferenceScope,
  requestedModel: string,
  types: readonly ModelType[],
  routing: { order?: RouteOrder; preset?: RoutingPreset | undefined } = {},
): Target {
  const { deps } = scope;
  const resolved = deps.catalog.resolve(requestedModel, scope.plan, scope.planName, types);
  scope.log.model = resolved.requested;
  const candidates = selectRoutes(resolved.model, resolved.flavor, deps.config.providers, {
    ...routing,
    health: deps.routeHealth.snapshotOf(resolved.model.routes.map((route) => routeKey({ providerId: route.provider, route }))),
  });
  preflightBalance(scope);
  return { resolved, candidates, hints: { maxOutputTokens: resolved.model.max_output_tokens, reasoning: modelReasons(resolved) } };
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
  const serving = candidates.filter((candidate) => {
    try {
      return typeof scope.deps.providers.get(candidate.providerId)[method] === 'function';
    } catch {
      return false;
    }
  });
  if (serving.length === 0) throw new GatewayError('INFERENCE_3104', `No provider of this model serves ${endpoint}.`);
  return serving;
}
