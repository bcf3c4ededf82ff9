import type { Flavor, ModelConfig, ProviderConfig, RouteConfig } from '../config/schema.js';
import { carbonPerKiloToken } from '../billing/energy.js';
import { GatewayError } from '../errors/gateway-error.js';

export interface CandidateRoute {
  route: RouteConfig;
  providerId: string;
  provider: ProviderConfig;
}

/** A rough per-call price used only for ordering (input + output per-million, or per image/minute). */
function priceKey(route: RouteConfig): number {
  const pricing = route.pricing;
  if (pricing === undefined) return 0;
  return (
    (pricing.input_cost_per_million_eur ?? 0) +
    (pricing.output_cost_per_million_eur ?? 0) +
    (pricing.cache_read_cost_per_million_eur ?? 0) +
    (pricing.image_cost_per_image_eur ?? 0) +
    (pricing.audio_cost_per_minute_eur ?? 0)
  );
}

function isFree(route: RouteConfig): boolean {
  return priceKey(route) === 0;
}

export type RouteOrder = 'priority' | 'price';

/**
 * Eligible routes for one call, best first (DESIGN §2 "Routing"). Pure: providers and flavor in,
 * ordered candidates out. Health-aware reordering plugs in here later (issue "Real providers").
 */
export function selectRoutes(
  model: ModelConfig,
  flavor: Flavor | null,
  providers: Record<string, ProviderConfig>,
  defaultOrder: RouteOrder = 'priority',
): CandidateRoute[] {
  let candidates: CandidateRoute[] = [];
  for (const route of model.routes) {
    const provider = providers[route.provider];
    if (provider === undefined || !provider.enabled) continue;
    if (flavor !== null && !route.flavors.includes(flavor)) continue;
    if (flavor === 'free' && !isFree(route)) continue;
    candidates.push({ route, providerId: route.provider, provider });
  }
  const byPriceThenPriority = (a: CandidateRoute, b: CandidateRoute) => priceKey(a.route) - priceKey(b.route) || a.route.priority - b.route.priority;
  const byPriorityThenPrice = (a: CandidateRoute, b: CandidateRoute) => a.route.priority - b.route.priority || priceKey(a.route) - priceKey(b.route);
  switch (flavor) {
    case 'eco':
      candidates = candidates.sort(
        (a, b) => carbonPerKiloToken(a.route.energy, a.provider) - carbonPerKiloToken(b.route.energy, b.provider) || byPriorityThenPrice(a, b),
      );
      break;
    case 'batch':
    case 'free':
      candidates = candidates.sort(byPriceThenPriority);
      break;
    case 'speed':
      // Observed latency comes with route health; until measured, configured priority decides.
      candidates = candidates.sort(byPriorityThenPrice);
      break;
    case null:
      candidates = candidates.sort(defaultOrder === 'price' ? byPriceThenPriority : byPriorityThenPrice);
      break;
  }
  if (candidates.length === 0) {
    throw new GatewayError('INFERENCE_3104', 'No provider is available for this model: every route is disabled or excluded by the flavor.', {});
  }
  return candidates;
}

/** Whether a flavor suffix is valid for a model: one of its routes must list it (DESIGN §2). */
export function modelOffersFlavor(model: ModelConfig, flavor: Flavor): boolean {
  return model.routes.some((route) => route.flavors.includes(flavor));
}
