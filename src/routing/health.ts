import type { Clock } from '../util/clock.js';

/**
 * Route health (DESIGN §2 "Unhealthy routes go last"; ARCHITECTURE routing/health.ts): per route,
 * a cooldown after transient failures and a latency average of successful calls. It is the only
 * mutable routing state; one instance lives in the AppContext (no module singleton), and
 * `selectRoutes` only ever sees the plain-data `snapshot()`.
 */

export interface RouteHealthPolicy {
  /** Cooldown after the first failure of a streak; doubles per further consecutive failure. */
  cooldownBaseMs: number;
  /** The doubling stops here (a Retry-After may still ask for longer). */
  cooldownCapMs: number;
  /** Weight of the newest latency sample in the moving average. */
  latencyAlpha: number;
}

export const DEFAULT_ROUTE_HEALTH_POLICY: RouteHealthPolicy = { cooldownBaseMs: 5_000, cooldownCapMs: 60_000, latencyAlpha: 0.3 };

/** What select needs to know about one route, at the moment the snapshot was taken. */
export interface RouteHealthStatus {
  /** True while the route is cooling down after transient failures: it is tried last. */
  coolingDown: boolean;
  /** Clock time at which the cooldown ends (0 when it is not cooling down). */
  cooldownEndsAt: number;
  /** Transient failures since the last success (kept after the cooldown ends, until a success). */
  consecutiveFailures: number;
  /** Moving average of successful calls' latency in ms; undefined until one was measured. */
  latencyMs: number | undefined;
}

/** Plain, frozen data: safe to hand to the pure `selectRoutes`, and to log or assert on. */
export interface HealthSnapshot {
  /** Clock time of the snapshot. */
  takenAt: number;
  /** Keyed by `routeKey()`; a route missing here has never failed nor been measured. */
  routes: Readonly<Record<string, RouteHealthStatus>>;
}

export const EMPTY_HEALTH_SNAPSHOT: HealthSnapshot = Object.freeze({ takenAt: 0, routes: Object.freeze({}) });

/**
 * `provider/upstream_model`: the unit that fails and that we time. Two models sharing one upstream
 * model at one provider share its health, which is what we want (it is the same upstream).
 */
export function routeKey(candidate: { providerId: string; route: { upstream_model: string } }): string {
  return `${candidate.providerId}/${candidate.route.upstream_model}`;
}

/** A route's cooldown state as instances share it in team mode (routing/shared via Redis). */
export interface SharedCooldown {
  consecutiveFailures: number;
  cooldownEndsAt: number;
}

interface RouteRecord {
  consecutiveFailures: number;
  cooldownEndsAt: number;
  latencyMs: number | undefined;
}

export class RouteHealth {
  readonly clock: Clock;
  private readonly policy: RouteHealthPolicy;
  private readonly records = new Map<string, RouteRecord>();
  private readonly failedAttemptListeners: Array<(key: string, code: string) => void> = [];
  private readonly cooldownListeners: Array<(key: string, cooldown: SharedCooldown) => void> = [];

  constructor(clock: Clock, policy: Partial<RouteHealthPolicy> = {}) {
    this.clock = clock;
    this.policy = { ...DEFAULT_ROUTE_HEALTH_POLICY, ...policy };
  }

  /** Told of every failed provider attempt (the metrics' upstream failures by code). */
  observeFailedAttempts(listener: (key: string, code: string) => void): void {
    this.failedAttemptListeners.push(listener);
  }

  /** Told of every cooldown this instance starts or ends (team mode shares them through Redis). */
  observeCooldowns(listener: (key: string, cooldown: SharedCooldown) => void): void {
    this.cooldownListeners.push(listener);
  }

  /** A cooldown started or ended on another instance: this instance orders the route the same way. */
  applySharedCooldown(key: string, cooldown: SharedCooldown): void {
    const record = this.recordOf(key);
    record.consecutiveFailures = cooldown.consecutiveFailures;
    record.cooldownEndsAt = cooldown.consecutiveFailures === 0 ? 0 : Math.max(record.cooldownEndsAt, cooldown.cooldownEndsAt);
  }

  private shareCooldown(key: string, record: RouteRecord, wasFailing: boolean): void {
    if (this.cooldownListeners.length === 0 || (!wasFailing && record.consecutiveFailures === 0)) return;
    const cooldown = { consecutiveFailures: record.consecutiveFailures, cooldownEndsAt: record.cooldownEndsAt };
    for (const listener of this.cooldownListeners) listener(key, cooldown);
  }

  /** One provider attempt failed with this code (whether or not it counts against the route's health). */
  attemptFailed(key: string, code: string): void {
    for (const listener of this.failedAttemptListeners) listener(key, code);
  }

  /**
   * A transient failure (connection error, 5xx, 429, timeout). `retryAfterMs` is the provider's
   * own estimate (a 429's Retry-After): the cooldown lasts at least that long, even past the cap,
   * because trying earlier is known to fail. Nothing is ever dropped for it, only ordered last.
   */
  recordFailure(key: string, retryAfterMs?: number): void {
    const now = this.clock.now();
    const record = this.recordOf(key);
    // A streak that ended long ago (no failure for a full cap after its cooldown) starts over:
    // a route that failed twice yesterday should get 5 s today, not 20 s.
    if (record.consecutiveFailures > 0 && now >= record.cooldownEndsAt + this.policy.cooldownCapMs) record.consecutiveFailures = 0;
    record.consecutiveFailures += 1;
    const doubled = this.policy.cooldownBaseMs * 2 ** Math.min(record.consecutiveFailures - 1, 30);
    let cooldownMs = Math.min(this.policy.cooldownCapMs, doubled);
    if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs)) cooldownMs = Math.max(cooldownMs, retryAfterMs);
    // Never shorten a cooldown already promised by an earlier (longer) Retry-After.
    record.cooldownEndsAt = Math.max(record.cooldownEndsAt, now + cooldownMs);
    this.shareCooldown(key, record, true);
  }

  /**
   * A successful call that took `latencyMs` (time to first chunk for streams, whole call
   * otherwise: whatever the caller's attempt awaited). Ends any cooldown and failure streak.
   */
  recordSuccess(key: string, latencyMs: number): void {
    const record = this.recordOf(key);
    const wasFailing = record.consecutiveFailures > 0;
    record.consecutiveFailures = 0;
    record.cooldownEndsAt = 0;
    // Only the end of a streak is news to other instances (not every success).
    this.shareCooldown(key, record, wasFailing);
    const sample = Math.max(0, latencyMs);
    const alpha = this.policy.latencyAlpha;
    record.latencyMs = record.latencyMs === undefined ? sample : alpha * sample + (1 - alpha) * record.latencyMs;
  }

  /**
   * Whether any of these routes is cooling down now: when none is, ranking by priority, price or
   * carbon gives the order it gives with no health at all, so a cached ranking stands (a
   * per-request snapshot would only be built to change nothing).
   */
  anyCoolingDown(keys: readonly string[]): boolean {
    let now: number | undefined;
    for (const key of keys) {
      const record = this.records.get(key);
      if (record === undefined || record.cooldownEndsAt === 0) continue;
      now ??= this.clock.now();
      if (record.cooldownEndsAt > now) return true;
    }
    return false;
  }

  /** The current state of every route seen so far, as frozen plain data. */
  snapshot(): HealthSnapshot {
    return this.snapshotOf(this.records.keys());
  }

  /** The snapshot restricted to some routes (one model's): per-request cost independent of the config's size. */
  snapshotOf(keys: Iterable<string>): HealthSnapshot {
    const now = this.clock.now();
    const routes: Record<string, RouteHealthStatus> = {};
    for (const key of keys) {
      const record = this.records.get(key);
      if (record === undefined) continue;
      const coolingDown = record.cooldownEndsAt > now;
      routes[key] = Object.freeze({
        coolingDown,
        cooldownEndsAt: coolingDown ? record.cooldownEndsAt : 0,
        consecutiveFailures: record.consecutiveFailures,
        latencyMs: record.latencyMs,
      });
    }
    return Object.freeze({ takenAt: now, routes: Object.freeze(routes) });
  }

  private recordOf(key: string): RouteRecord {
    let record = this.records.get(key);
    if (record === undefined) {
      record = { consecutiveFailures: 0, cooldownEndsAt: 0, latencyMs: undefined };
      this.records.set(key, record);
    }
    return record;
  }
}
