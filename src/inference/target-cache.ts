import type { Catalog, ResolvedModel } from '../catalog/catalog.js';
import type { Config } from '../config/load.js';
import type { ModelType, PlanConfig } from '../config/schema.js';
import { routeKey } from '../routing/health.js';
import { routeRanking, selectRoutes, type CandidateRoute, type RouteOrder, type RoutingPreset } from '../routing/select.js';

/** Per-model facts every adapter call of a target carries (CallContext hints). */
export interface TargetHints {
  maxOutputTokens: number | null | undefined;
  reasoning: boolean;
}

/**
 * What resolving one model string yields that depends only on the config, the plan and the
 * request's model, types and routing options: the catalog's answer, the eligible routes ranked as
 * if every route were healthy, their health keys, and the adapter hints. Shared by every request
 * that asks the same: frozen, so a caller that tried to change it would fail loudly.
 */
export interface StaticTarget {
  resolved: ResolvedModel;
  /** Eligible routes, best first, with no route cooling down. */
  ranked: CandidateRoute[];
  /** routeKey() of each ranked route, for the live health check. */
  keys: readonly string[];
  /** Ranked by observed latency (`:speed`, preset non_reasoning): the order needs live health every time. */
  byLatency: boolean;
  hints: TargetHints;
}

export interface TargetRouting {
  order?: RouteOrder;
  preset?: RoutingPreset | undefined;
}

/** Past this many distinct (model, types, routing) entries per plan the plan's map starts over: client strings cannot grow it without bound. */
const MAX_ENTRIES_PER_PLAN = 1024;

/** Whether the model reasons (reasoning_type or capabilities.reasoning), for hints and surfaces. */
export function modelReasons(resolved: ResolvedModel): boolean {
  return resolved.model.reasoning_type !== 'non_reasoning' || resolved.model.capabilities.reasoning === true;
}

/**
 * Stage "resolve" as one Map lookup per request (issue 18 item 3: resolution, route list and
 * ranking were rebuilt on every call). Entries are keyed by the catalog (one per config: the
 * config is the generation, a new config means a new catalog), then by the plan object (a key or
 * account moved to another plan sees that plan's models at once: DESIGN §6 plan gating), then by
 * the request's model string, types and routing options. Only successful resolutions are kept:
 * a refusal is worked out again each time, with its own message.
 */
export class TargetCache {
  private readonly byPlan = new WeakMap<PlanConfig, Map<string, StaticTarget>>();

  constructor(
    private readonly catalog: Pick<Catalog, 'resolve'>,
    readonly providers: Config['providers'],
  ) {}

  lookup(requested: string, plan: PlanConfig, planName: string, types: readonly ModelType[], routing: TargetRouting): StaticTarget {
    let entries = this.byPlan.get(plan);
    if (entries === undefined) {
      entries = new Map();
      this.byPlan.set(plan, entries);
    }
    const key = `${requested}\u0000${types.join(',')}\u0000${routing.order ?? ''}\u0000${routing.preset ?? ''}`;
    let entry = entries.get(key);
    if (entry === undefined) {
      entry = this.build(requested, plan, planName, types, routing);
      if (entries.size >= MAX_ENTRIES_PER_PLAN) entries.clear();
      entries.set(key, entry);
    }
    return entry;
  }

  private build(requested: string, plan: PlanConfig, planName: string, types: readonly ModelType[], routing: TargetRouting): StaticTarget {
    const resolved = this.catalog.resolve(requested, plan, planName, types);
    const ranked = selectRoutes(resolved.model, resolved.flavor, this.providers, routing);
    return Object.freeze({
      resolved: Object.freeze(resolved),
      ranked: Object.freeze(ranked) as CandidateRoute[],
      keys: Object.freeze(ranked.map((candidate) => routeKey(candidate))),
      byLatency: routeRanking(resolved.flavor, routing.preset, routing.order ?? 'priority') === 'latency',
      hints: Object.freeze({ maxOutputTokens: resolved.model.max_output_tokens, reasoning: modelReasons(resolved) }),
    });
  }
}

const caches = new WeakMap<object, TargetCache>();

/** The cache of this catalog (and its config's providers): made on first use. */
export function targetCacheOf(catalog: Pick<Catalog, 'resolve'>, providers: Config['providers']): TargetCache {
  let cache = caches.get(catalog);
  if (cache === undefined || cache.providers !== providers) {
    cache = new TargetCache(catalog, providers);
    caches.set(catalog, cache);
  }
  return cache;
}
