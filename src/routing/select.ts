import type { Flavor, ModelConfig, ProviderConfig, RouteConfig } from '../config/schema.js';
import { carbonPerKiloToken } from '../billing/energy.js';
import { GatewayError } from '../errors/gateway-error.js';
import { EMPTY_HEALTH_SNAPSHOT, routeKey, type HealthSnapshot, type RouteHealthStatus } from './health.js';

export interface CandidateRoute {
  route: RouteConfig;
  providerId: string;
  provider: ProviderConfig;
}

/** The order used when the model name has no flavor suffix (chat: priority; embeddings: price). */
export type RouteOrder = 'priority' | 'price';

/** The request's `preset` (spec: chat `reasoning` | `non_reasoning`, embeddings `quality`). */
export type RoutingPreset = 'reasoning' | 'non_reasoning' | 'quality';

/** The key routes are sorted by, once flavor, preset and default order are taken into account. */
export type RouteRanking = 'priority' | 'price' | 'carbon' | 'latency';

export interface SelectOptions {
  /** Ranking without a flavor suffix or preset; defaults to 'priority'. */
  order?: RouteOrder;
  preset?: RoutingPreset | undefined;
  /** Route health at request time; without it every route counts as healthy and unmeasured. */
  health?: HealthSnapshot;
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

/**
 * Which key ranks the routes. A flavor suffix wins over everything (spec: the preset is
 * "overridden by a flavor suffix"). Without one, the preset decides, then the endpoint's order:
 * - `non_reasoning` "biases to speed": ranked by observed latency, as `:speed` is.
 * - `quality` "biases toward higher-quality providers": configured priority is where the
 *   operator states which provider serves a model best, so priority instead of price.
 * - `reasoning` "biases routing to reasoning models": every route of one model serves that same
 *   model, so there is no reasoning model to switch to at this level (the model the client named
 *   is the choice). What the preset can still do is keep cheap or merely fast routes from
 *   overtaking: rank by configured priority, never by price, and ignore latency (a reasoning
 *   answer's time is dominated by its thinking, not by which route served it).
 */
export function routeRanking(flavor: Flavor | null, preset: RoutingPreset | undefined, order: RouteOrder): RouteRanking {
  switch (flavor) {
    case 'eco':
      return 'carbon';
    case 'free':
    case 'batch':
      return 'price';
    case 'speed':
      return 'latency';
    case null:
      break;
  }
  if (preset === 'non_reasoning') return 'latency';
  if (preset === 'reasoning' || preset === 'quality') return 'priority';
  return order;
}

type Comparator = (a: CandidateRoute, b: CandidateRoute) => number;

const byPriorityThenPrice: Comparator = (a, b) => a.route.priority - b.route.priority || priceKey(a.route) - priceKey(b.route);
const byPriceThenPriority: Comparator = (a, b) => priceKey(a.route) - priceKey(b.route) || a.route.priority - b.route.priority;
const byCarbon: Comparator = (a, b) => carbonPerKiloToken(a.route.energy, a.provider) - carbonPerKiloToken(b.route.energy, b.provider) || byPriorityThenPrice(a, b);

/**
 * Latency ranking (DESIGN: "configured priority until measured"). Unmeasured routes go FIRST, by
 * priority: a route is measured only when it is called, so ranking unmeasured routes after
 * measured ones would leave every route but the first one unmeasured forever and `:speed` would
 * just be priority order. Each unmeasured route thus costs at most one request after a restart
 * (or until its first success); from then on the fastest average leads.
 */
function byLatency(status: (candidate: CandidateRoute) => RouteHealthStatus | undefined): Comparator {
  return (a, b) => {
    const latencyA = status(a)?.latencyMs;
    const latencyB = status(b)?.latencyMs;
    if (latencyA === undefined || latencyB === undefined) {
      if (latencyA !== latencyB) return latencyA === undefined ? -1 : 1;
      return byPriorityThenPrice(a, b);
    }
    return latencyA - latencyB || byPriorityThenPrice(a, b);
  };
}

/**
 * Eligible routes for one call, best first (DESIGN §2 "Routing"). Pure: config, flavor, preset
 * and a health snapshot in, ordered candidates out. Routes cooling down after transient failures
 * go last (soonest to recover first) but are never dropped: when every route is cooling, trying
 * one beats refusing the request. `options` may still be a bare RouteOrder (the old signature).
 */
export function selectRoutes(
  model: ModelConfig,
  flavor: Flavor | null,
  providers: Record<string, ProviderConfig>,
  options: SelectOptions | RouteOrder = {},
): CandidateRoute[] {
  const { order = 'priority', preset, health = EMPTY_HEALTH_SNAPSHOT } = typeof options === 'string' ? { order: options } : options;
  const candidates: CandidateRoute[] = [];
  for (const route of model.routes) {
    const provider = providers[route.provider];
    if (provider === undefined || !provider.enabled) continue;
    if (flavor !== null && !route.flavors.includes(flavor)) continue;
    if (flavor === 'free' && !isFree(route)) continue;
    candidates.push({ route, providerId: route.provider, provider });
  }
  if (candidates.length === 0) {
    throw new GatewayError('INFERENCE_3104', 'No provider is available for this model: every route is disabled or excluded by the flavor.', {});
  }

  const status = (candidate: CandidateRoute): RouteHealthStatus | undefined => health.routes[routeKey(candidate)];
  const comparators: Record<RouteRanking, Comparator> = {
    priority: byPriorityThenPrice,
    price: byPriceThenPriority,
    carbon: byCarbon,
    latency: byLatency(status),
  };
  const ranked = candidates.sort(comparators[routeRanking(flavor, preset, order)]);

  const healthy = ranked.filter((candidate) => status(candidate)?.coolingDown !== true);
  // Array.prototype.sort is stable, so cooling routes that end together keep their ranking.
  const cooling = ranked.filter((candidate) => status(candidate)?.coolingDown === true).sort((a, b) => status(a)!.cooldownEndsAt - status(b)!.cooldownEndsAt);
  return [...healthy, ...cooling];
}

/** Whether a flavor suffix is valid for a model: one of its routes must list it (DESIGN §2). */
export function modelOffersFlavor(model: ModelConfig, flavor: Flavor): boolean {
  return model.routes.some((route) => route.flavors.includes(flavor));
}
