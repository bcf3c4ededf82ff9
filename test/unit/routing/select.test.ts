import { describe, expect, it } from 'vitest';
import type { Flavor, ModelConfig, ProviderConfig, RouteConfig } from '../../../src/config/schema.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type { HealthSnapshot, RouteHealthStatus } from '../../../src/routing/health.js';
import { modelOffersFlavor, routeRanking, selectRoutes, type RouteOrder, type RouteRanking, type RoutingPreset } from '../../../src/routing/select.js';
import { providerConfig } from '../../helpers/provider-config.js';

function provider(change: Partial<ProviderConfig> = {}): ProviderConfig {
  return providerConfig({ location: 'US', pue: 1.2, renewable_percent: 0, carbon_g_per_kwh: 400, water_l_per_kwh: 1.8, ...change });
}

function route(providerId: string, change: Partial<RouteConfig> = {}): RouteConfig {
  return { provider: providerId, upstream_model: `${providerId}-model`, priority: 1, flavors: ['eco', 'free', 'speed', 'batch'], energy: {}, ...change };
}

function model(routes: RouteConfig[]): ModelConfig {
  return {
    type: 'chat',
    owned_by: 'test',
    created: 0,
    max_output_tokens: null,
    input_modalities: ['text'],
    output_modalities: ['text'],
    capabilities: {},
    reasoning_type: 'non_reasoning',
    reasoning_effort: null,
    knowledge_cutoff: null,
    release_date: null,
    modelhub_url: null,
    advanced: false,
    routes,
  };
}

const providers: Record<string, ProviderConfig> = {
  // dirty: cheap, high carbon
  dirty: provider({ carbon_g_per_kwh: 800, pue: 1.5 }),
  // clean: expensive, low carbon
  clean: provider({ carbon_g_per_kwh: 20, pue: 1.1 }),
  // mid
  mid: provider({ carbon_g_per_kwh: 300, pue: 1.2 }),
  // local: free
  local: provider({ kind: 'local', carbon_g_per_kwh: 0, pue: 1 }),
  off: provider({ enabled: false, carbon_g_per_kwh: 0 }),
};

const energy = { wh_per_1k_input_tokens: 0.1, wh_per_1k_output_tokens: 0.3 };

const routes = {
  dirty: route('dirty', { priority: 3, pricing: { input_cost_per_million_eur: 0.1, output_cost_per_million_eur: 0.2 }, energy }),
  clean: route('clean', { priority: 2, pricing: { input_cost_per_million_eur: 2, output_cost_per_million_eur: 8 }, energy }),
  mid: route('mid', { priority: 1, pricing: { input_cost_per_million_eur: 0.5, output_cost_per_million_eur: 1.5 }, energy }),
  local: route('local', { priority: 4, energy: { wh_per_1k_input_tokens: 0.5, wh_per_1k_output_tokens: 0.5 } }),
  zeroPriced: route('mid', { priority: 5, upstream_model: 'zero', pricing: { input_cost_per_million_eur: 0, output_cost_per_million_eur: 0 }, energy }),
  off: route('off', { priority: 0, energy }),
};

const order = (candidates: ReturnType<typeof selectRoutes>) => candidates.map((candidate) => `${candidate.providerId}/${candidate.route.upstream_model}`);

describe('selectRoutes: ordering per flavor', () => {
  const all = model([routes.dirty, routes.clean, routes.mid, routes.local, routes.zeroPriced, routes.off]);

  it.each<{ flavor: Flavor | null; defaultOrder?: RouteOrder; expected: string[] }>([
    // no suffix: priority, then price
    { flavor: null, expected: ['mid/mid-model', 'clean/clean-model', 'dirty/dirty-model', 'local/local-model', 'mid/zero'] },
    // no suffix with price order (embeddings): price, then priority
    { flavor: null, defaultOrder: 'price', expected: ['local/local-model', 'mid/zero', 'dirty/dirty-model', 'mid/mid-model', 'clean/clean-model'] },
    // eco: grams of CO2 per token (local 0, clean 0.4*1.1*20, mid 0.4*1.2*300, dirty 0.4*1.5*800); ties by priority
    { flavor: 'eco', expected: ['local/local-model', 'clean/clean-model', 'mid/mid-model', 'mid/zero', 'dirty/dirty-model'] },
    // free: only zero-priced routes (no pricing counts as free), by price then priority
    { flavor: 'free', expected: ['local/local-model', 'mid/zero'] },
    // batch: by price, then priority
    { flavor: 'batch', expected: ['local/local-model', 'mid/zero', 'dirty/dirty-model', 'mid/mid-model', 'clean/clean-model'] },
    // speed: priority until latency is measured
    { flavor: 'speed', expected: ['mid/mid-model', 'clean/clean-model', 'dirty/dirty-model', 'local/local-model', 'mid/zero'] },
  ])('$flavor (default order $defaultOrder)', ({ flavor, defaultOrder, expected }) => {
    expect(order(selectRoutes(all, flavor, providers, defaultOrder))).toEqual(expected);
  });

  it('keeps only routes listing the flavor', () => {
    const mixed = model([route('dirty', { flavors: ['batch'] }), route('clean', { flavors: ['eco'] }), route('mid', { flavors: [] })]);
    expect(order(selectRoutes(mixed, 'eco', providers))).toEqual(['clean/clean-model']);
    expect(order(selectRoutes(mixed, 'batch', providers))).toEqual(['dirty/dirty-model']);
    expect(order(selectRoutes(mixed, null, providers))).toHaveLength(3);
  });

  it('skips disabled and unknown providers', () => {
    const candidates = selectRoutes(model([routes.off, route('ghost'), routes.mid]), null, providers);
    expect(order(candidates)).toEqual(['mid/mid-model']);
    expect(candidates[0]!.provider).toBe(providers['mid']);
  });

  it('ties on priority are broken by price', () => {
    const tied = model([route('clean', { priority: 1, pricing: { input_cost_per_million_eur: 3 } }), route('dirty', { priority: 1, pricing: { input_cost_per_million_eur: 1 } })]);
    expect(order(selectRoutes(tied, null, providers))).toEqual(['dirty/dirty-model', 'clean/clean-model']);
  });

  it('prices by image and audio units too', () => {
    const images = model([route('clean', { priority: 1, pricing: { image_cost_per_image_eur: 0.08 } }), route('dirty', { priority: 2, pricing: { image_cost_per_image_eur: 0.02 } })]);
    expect(order(selectRoutes(images, 'batch', providers))).toEqual(['dirty/dirty-model', 'clean/clean-model']);
  });
});

describe('selectRoutes: nothing eligible → INFERENCE_3104', () => {
  it.each<{ name: string; model: ModelConfig; flavor: Flavor | null }>([
    { name: 'every provider disabled', model: model([routes.off]), flavor: null },
    { name: 'provider missing', model: model([route('ghost')]), flavor: null },
    { name: 'free flavor but every route is priced', model: model([routes.dirty, routes.clean]), flavor: 'free' },
    { name: 'flavor listed only by a disabled route', model: model([route('off', { flavors: ['eco'] }), route('mid', { flavors: [] })]), flavor: 'eco' },
  ])('$name', ({ model: config, flavor }) => {
    try {
      selectRoutes(config, flavor, providers);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).code).toBe('INFERENCE_3104');
      expect((error as GatewayError).status).toBe(503);
    }
  });
});

describe('modelOffersFlavor', () => {
  const config = model([route('a', { flavors: ['speed'] }), route('b', { flavors: ['batch', 'eco'] })]);
  it.each<[Flavor, boolean]>([
    ['speed', true],
    ['batch', true],
    ['eco', true],
    ['free', false],
  ])('%s → %s', (flavor, expected) => {
    expect(modelOffersFlavor(config, flavor)).toBe(expected);
  });
});

/** A snapshot from per-route facts: `latency` in ms, `coolingFor` ms of cooldown left at time 0. */
function health(routesByKey: Record<string, { latency?: number; coolingFor?: number }>): HealthSnapshot {
  const routes: Record<string, RouteHealthStatus> = {};
  for (const [key, facts] of Object.entries(routesByKey)) {
    const coolingDown = facts.coolingFor !== undefined;
    routes[key] = { coolingDown, cooldownEndsAt: facts.coolingFor ?? 0, consecutiveFailures: coolingDown ? 1 : 0, latencyMs: facts.latency };
  }
  return { takenAt: 0, routes };
}

describe('routeRanking: flavor, then preset, then the endpoint order', () => {
  it.each<{ flavor: Flavor | null; preset?: RoutingPreset; order: RouteOrder; expected: RouteRanking }>([
    { flavor: null, order: 'priority', expected: 'priority' },
    { flavor: null, order: 'price', expected: 'price' },
    { flavor: 'eco', order: 'priority', expected: 'carbon' },
    { flavor: 'free', order: 'priority', expected: 'price' },
    { flavor: 'batch', order: 'priority', expected: 'price' },
    { flavor: 'speed', order: 'price', expected: 'latency' },
    { flavor: null, preset: 'non_reasoning', order: 'priority', expected: 'latency' },
    { flavor: null, preset: 'reasoning', order: 'priority', expected: 'priority' },
    { flavor: null, preset: 'reasoning', order: 'price', expected: 'priority' },
    { flavor: null, preset: 'quality', order: 'price', expected: 'priority' },
    // a flavor suffix overrides the preset (spec)
    { flavor: 'eco', preset: 'non_reasoning', order: 'priority', expected: 'carbon' },
    { flavor: 'batch', preset: 'reasoning', order: 'priority', expected: 'price' },
    { flavor: 'speed', preset: 'quality', order: 'price', expected: 'latency' },
    { flavor: 'free', preset: 'quality', order: 'price', expected: 'price' },
  ])('$flavor + preset $preset + order $order → $expected', ({ flavor, preset, order: endpointOrder, expected }) => {
    expect(routeRanking(flavor, preset, endpointOrder)).toBe(expected);
  });
});

describe('selectRoutes: latency, presets and health', () => {
  // priority: mid 1, clean 2, dirty 3, local 4; price: local 0 < dirty < mid < clean
  const four = model([routes.dirty, routes.clean, routes.mid, routes.local]);
  const measured = health({ 'dirty/dirty-model': { latency: 80 }, 'clean/clean-model': { latency: 300 }, 'mid/mid-model': { latency: 150 }, 'local/local-model': { latency: 40 } });

  it.each<{ name: string; flavor: Flavor | null; options: Parameters<typeof selectRoutes>[3]; expected: string[] }>([
    { name: ':speed, all measured: fastest first', flavor: 'speed', options: { health: measured }, expected: ['local', 'dirty', 'mid', 'clean'] },
    { name: ':speed, nothing measured: priority', flavor: 'speed', options: { health: health({}) }, expected: ['mid', 'clean', 'dirty', 'local'] },
    {
      name: ':speed, partly measured: unmeasured first (by priority) so they get measured, then fastest',
      flavor: 'speed',
      options: { health: health({ 'mid/mid-model': { latency: 500 }, 'dirty/dirty-model': { latency: 90 } }) },
      expected: ['clean', 'local', 'dirty', 'mid'],
    },
    {
      name: ':speed, equal latency: priority breaks the tie',
      flavor: 'speed',
      options: { health: health({ 'dirty/dirty-model': { latency: 100 }, 'clean/clean-model': { latency: 100 }, 'mid/mid-model': { latency: 100 }, 'local/local-model': { latency: 100 } }) },
      expected: ['mid', 'clean', 'dirty', 'local'],
    },
    { name: 'preset non_reasoning: like :speed', flavor: null, options: { preset: 'non_reasoning', health: measured }, expected: ['local', 'dirty', 'mid', 'clean'] },
    { name: 'preset reasoning: priority, latency ignored', flavor: null, options: { preset: 'reasoning', health: measured }, expected: ['mid', 'clean', 'dirty', 'local'] },
    { name: 'preset reasoning over a price order: still priority', flavor: null, options: { preset: 'reasoning', order: 'price' }, expected: ['mid', 'clean', 'dirty', 'local'] },
    { name: 'embeddings default: price', flavor: null, options: { order: 'price' }, expected: ['local', 'dirty', 'mid', 'clean'] },
    { name: 'embeddings preset quality: priority instead of price', flavor: null, options: { order: 'price', preset: 'quality' }, expected: ['mid', 'clean', 'dirty', 'local'] },
    { name: 'embeddings :speed beats the price order', flavor: 'speed', options: { order: 'price', health: measured }, expected: ['local', 'dirty', 'mid', 'clean'] },
    { name: 'flavor :eco overrides preset non_reasoning', flavor: 'eco', options: { preset: 'non_reasoning', health: measured }, expected: ['local', 'clean', 'mid', 'dirty'] },
    { name: 'flavor :batch overrides preset quality', flavor: 'batch', options: { preset: 'quality', order: 'price' }, expected: ['local', 'dirty', 'mid', 'clean'] },
    { name: 'old signature: a bare order', flavor: null, options: 'price', expected: ['local', 'dirty', 'mid', 'clean'] },
    { name: 'no options: priority', flavor: null, options: undefined, expected: ['mid', 'clean', 'dirty', 'local'] },
  ])('$name', ({ flavor, options, expected }) => {
    expect(selectRoutes(four, flavor, providers, options).map((candidate) => candidate.providerId)).toEqual(expected);
  });

  it.each<{ name: string; flavor: Flavor | null; options: { order?: RouteOrder; preset?: RoutingPreset }; cooling: Record<string, number>; expected: string[] }>([
    { name: 'priority: the cooling first choice goes last', flavor: null, options: {}, cooling: { 'mid/mid-model': 5_000 }, expected: ['clean', 'dirty', 'local', 'mid'] },
    { name: 'price: the cooling cheapest goes last', flavor: null, options: { order: 'price' }, cooling: { 'local/local-model': 5_000 }, expected: ['dirty', 'mid', 'clean', 'local'] },
    { name: 'eco: cooling routes last', flavor: 'eco', options: {}, cooling: { 'local/local-model': 5_000, 'clean/clean-model': 9_000 }, expected: ['mid', 'dirty', 'local', 'clean'] },
    { name: 'speed: the fastest but cooling goes last', flavor: 'speed', options: {}, cooling: { 'local/local-model': 5_000 }, expected: ['dirty', 'mid', 'clean', 'local'] },
    { name: 'several cooling: soonest to recover first', flavor: null, options: {}, cooling: { 'mid/mid-model': 60_000, 'clean/clean-model': 5_000, 'dirty/dirty-model': 20_000 }, expected: ['local', 'clean', 'dirty', 'mid'] },
    { name: 'cooling ends together: ranking kept', flavor: null, options: {}, cooling: { 'mid/mid-model': 5_000, 'dirty/dirty-model': 5_000 }, expected: ['clean', 'local', 'mid', 'dirty'] },
    {
      name: 'all cooling: none dropped',
      flavor: null,
      options: {},
      cooling: { 'mid/mid-model': 5_000, 'clean/clean-model': 5_000, 'dirty/dirty-model': 5_000, 'local/local-model': 5_000 },
      expected: ['mid', 'clean', 'dirty', 'local'],
    },
  ])('cooldown: $name', ({ flavor, options, cooling, expected }) => {
    const facts: Record<string, { latency?: number; coolingFor?: number }> = {
      'dirty/dirty-model': { latency: 80 },
      'clean/clean-model': { latency: 300 },
      'mid/mid-model': { latency: 150 },
      'local/local-model': { latency: 40 },
    };
    for (const [key, coolingFor] of Object.entries(cooling)) facts[key] = { ...facts[key], coolingFor };
    expect(selectRoutes(four, flavor, providers, { ...options, health: health(facts) }).map((candidate) => candidate.providerId)).toEqual(expected);
  });

  it('health is keyed by provider/upstream_model: two routes at one provider are told apart', () => {
    const twoAtMid = model([routes.mid, routes.zeroPriced]);
    const snapshot = health({ 'mid/mid-model': { coolingFor: 5_000 } });
    expect(order(selectRoutes(twoAtMid, null, providers, { health: snapshot }))).toEqual(['mid/zero', 'mid/mid-model']);
  });

  it('a cooling route is still no substitute for an eligible one: INFERENCE_3104 is about config, not health', () => {
    expect(() => selectRoutes(model([routes.off]), null, providers, { health: health({ 'off/off-model': { coolingFor: 1 } }) })).toThrow(GatewayError);
  });
});
