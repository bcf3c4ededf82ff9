import { describe, expect, it } from 'vitest';
import { RouteHealth, routeKey } from '../../../src/routing/health.js';

function setup() {
  const clock = { time: 1_000_000, now() { return this.time; } };
  const health = new RouteHealth(clock);
  return { clock, health, status: (key = 'p/m') => health.snapshot().routes[key] };
}

describe('RouteHealth: cooldown', () => {
  it('a route never seen is not in the snapshot', () => {
    expect(setup().status()).toBeUndefined();
  });

  it('cooldown starts at 5 s and doubles per consecutive failure up to 60 s', () => {
    const { clock, health, status } = setup();
    const cooldowns: number[] = [];
    for (let failure = 0; failure < 7; failure += 1) {
      health.recordFailure('p/m');
      cooldowns.push(status()!.cooldownEndsAt - clock.time);
      // Fail again only once the cooldown is over, as a real route would be tried again then.
      clock.time = status()!.cooldownEndsAt;
    }
    expect(cooldowns).toEqual([5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
  });

  it.each<{ name: string; after: number; coolingDown: boolean }>([
    { name: 'just after the failure', after: 0, coolingDown: true },
    { name: '1 ms before the end', after: 4_999, coolingDown: true },
    { name: 'at the end', after: 5_000, coolingDown: false },
    { name: 'long after', after: 50_000, coolingDown: false },
  ])('one failure: cooling down $name → $coolingDown', ({ after, coolingDown }) => {
    const { clock, health, status } = setup();
    health.recordFailure('p/m');
    clock.time += after;
    expect(status()).toMatchObject({ coolingDown, consecutiveFailures: 1 });
    if (!coolingDown) expect(status()!.cooldownEndsAt).toBe(0);
  });

  it('a success clears the cooldown and the streak', () => {
    const { clock, health, status } = setup();
    health.recordFailure('p/m');
    health.recordFailure('p/m');
    health.recordFailure('p/m');
    expect(status()).toMatchObject({ coolingDown: true, consecutiveFailures: 3 });
    health.recordSuccess('p/m', 120);
    expect(status()).toEqual({ coolingDown: false, cooldownEndsAt: 0, consecutiveFailures: 0, latencyMs: 120 });
    health.recordFailure('p/m');
    expect(status()!.cooldownEndsAt - clock.time).toBe(5_000);
  });

  it.each<{ name: string; failuresBefore: number; retryAfterMs: number; cooldownMs: number }>([
    { name: 'longer than the doubling: wins', failuresBefore: 0, retryAfterMs: 30_000, cooldownMs: 30_000 },
    { name: 'shorter than the doubling: the doubling wins', failuresBefore: 0, retryAfterMs: 1_000, cooldownMs: 5_000 },
    { name: 'past the 60 s cap: still honoured', failuresBefore: 0, retryAfterMs: 120_000, cooldownMs: 120_000 },
    { name: 'shorter than a grown streak', failuresBefore: 2, retryAfterMs: 7_000, cooldownMs: 20_000 },
  ])('a Retry-After $name', ({ failuresBefore, retryAfterMs, cooldownMs }) => {
    const { clock, health, status } = setup();
    for (let failure = 0; failure < failuresBefore; failure += 1) health.recordFailure('p/m');
    health.recordFailure('p/m', retryAfterMs);
    expect(status()!.cooldownEndsAt - clock.time).toBe(cooldownMs);
  });

  it('a later failure never shortens a longer cooldown promised by a Retry-After', () => {
    const { clock, health, status } = setup();
    health.recordFailure('p/m', 300_000);
    clock.time += 1_000;
    health.recordFailure('p/m');
    expect(status()!.cooldownEndsAt).toBe(1_000_000 + 300_000);
  });

  it('a streak that ended long ago starts over', () => {
    const { clock, health, status } = setup();
    health.recordFailure('p/m');
    health.recordFailure('p/m');
    clock.time += 10 * 60_000;
    health.recordFailure('p/m');
    expect(status()).toMatchObject({ consecutiveFailures: 1 });
    expect(status()!.cooldownEndsAt - clock.time).toBe(5_000);
  });

  it('routes are independent', () => {
    const { health, status } = setup();
    health.recordFailure('a/m');
    expect(status('a/m')!.coolingDown).toBe(true);
    expect(status('b/m')).toBeUndefined();
  });
});

describe('RouteHealth: latency EWMA (alpha 0.3)', () => {
  it.each<{ samples: number[]; expected: number }>([
    { samples: [100], expected: 100 },
    { samples: [100, 200], expected: 130 },
    { samples: [100, 200, 50], expected: 106 },
    { samples: [1_000, 0, 0, 0], expected: 343 },
    { samples: [-5], expected: 0 },
  ])('$samples → $expected ms', ({ samples, expected }) => {
    const { health, status } = setup();
    for (const sample of samples) health.recordSuccess('p/m', sample);
    expect(status()!.latencyMs).toBeCloseTo(expected, 9);
  });

  it('failures leave the latency average alone', () => {
    const { health, status } = setup();
    health.recordSuccess('p/m', 200);
    health.recordFailure('p/m');
    expect(status()!.latencyMs).toBe(200);
  });

  it('a custom alpha is honoured', () => {
    const clock = { now: () => 0 };
    const health = new RouteHealth(clock, { latencyAlpha: 0.5 });
    health.recordSuccess('p/m', 100);
    health.recordSuccess('p/m', 200);
    expect(health.snapshot().routes['p/m']!.latencyMs).toBe(150);
  });
});

describe('RouteHealth: snapshot', () => {
  it('is frozen plain data that later events do not change', () => {
    const { clock, health } = setup();
    health.recordFailure('p/m');
    const snapshot = health.snapshot();
    health.recordSuccess('p/m', 10);
    expect(snapshot).toEqual({ takenAt: clock.time, routes: { 'p/m': { coolingDown: true, cooldownEndsAt: clock.time + 5_000, consecutiveFailures: 1, latencyMs: undefined } } });
    expect(Object.isFrozen(snapshot)).toBe(true);
    expect(Object.isFrozen(snapshot.routes)).toBe(true);
    expect(Object.isFrozen(snapshot.routes['p/m'])).toBe(true);
    expect(JSON.parse(JSON.stringify(health.snapshot()))).toEqual({ takenAt: clock.time, routes: { 'p/m': { coolingDown: false, cooldownEndsAt: 0, consecutiveFailures: 0, latencyMs: 10 } } });
  });

  it('routeKey is provider/upstream_model', () => {
    expect(routeKey({ providerId: 'groq', route: { upstream_model: 'llama-3.1-8b' } })).toBe('groq/llama-3.1-8b');
  });
});
