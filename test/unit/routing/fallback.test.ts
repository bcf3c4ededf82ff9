import { describe, expect, it, vi } from 'vitest';
import type { ProviderConfig } from '../../../src/config/schema.js';
import type { ErrorCode } from '../../../src/errors/catalog.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { tryRoutes, worthRetryingSameRoute, type TryRoutesOptions } from '../../../src/routing/fallback.js';
import { RouteHealth } from '../../../src/routing/health.js';
import type { CandidateRoute } from '../../../src/routing/select.js';
import { abortableSleep } from '../../../src/util/sleep.js';
import { providerConfig } from '../../helpers/provider-config.js';

const provider: ProviderConfig = providerConfig();

const candidate = (providerId: string): CandidateRoute => ({
  providerId,
  provider,
  route: { provider: providerId, upstream_model: 'm', priority: 1, flavors: [], energy: {} },
});

/** What one attempt does: answer, throw a catalog error (optionally with headers/details), or throw a bug. */
type Outcome = 'ok' | ErrorCode | 'plain-error' | { code: ErrorCode; retryAfter?: string; upstreamStatus?: number };

function failure(outcome: Exclude<Outcome, 'ok' | 'plain-error'>, providerId: string): GatewayError {
  const code = typeof outcome === 'string' ? outcome : outcome.code;
  const headers = typeof outcome === 'object' && outcome.retryAfter !== undefined ? { 'Retry-After': outcome.retryAfter } : undefined;
  const details = typeof outcome === 'object' && outcome.upstreamStatus !== undefined ? { provider: providerId, upstream_status: outcome.upstreamStatus } : undefined;
  return new GatewayError(code, `${code} from ${providerId}`, details, headers === undefined ? {} : { headers });
}

function fakeClock(start = 1_000_000) {
  return { time: start, now() { return this.time; } };
}

/**
 * Runs tryRoutes with one route per entry of `routes`; each route answers its outcomes in turn
 * (the last one repeats). Waits go to a fake sleep that records them; backoff jitter is fixed at
 * 0.5 so every wait is exactly half its ceiling.
 */
async function run(routes: Outcome[][], options: TryRoutesOptions & { signal?: AbortSignal; onAttempt?: (providerId: string) => void } = {}) {
  const called: string[] = [];
  const delays: number[] = [];
  const calls = new Map<string, number>();
  const candidates = routes.map((_, index) => candidate(`p${index + 1}`));
  const attempt = async (route: CandidateRoute) => {
    called.push(route.providerId);
    options.onAttempt?.(route.providerId);
    const outcomes = routes[Number(route.providerId.slice(1)) - 1]!;
    const count = calls.get(route.providerId) ?? 0;
    calls.set(route.providerId, count + 1);
    const outcome = outcomes[Math.min(count, outcomes.length - 1)]!;
    if (outcome === 'ok') return `answer from ${route.providerId}`;
    if (outcome === 'plain-error') throw new TypeError('boom');
    throw failure(outcome, route.providerId);
  };
  const sleep = async (milliseconds: number) => {
    delays.push(milliseconds);
  };
  try {
    const result = await tryRoutes(candidates, options.signal ?? new AbortController().signal, attempt, { sleep, backoff: { random: () => 0.5 }, ...options });
    return { called, delays, result, error: undefined };
  } catch (error) {
    return { called, delays, result: undefined, error };
  }
}

describe('tryRoutes: order and outcomes', () => {
  it.each<{ name: string; routes: Outcome[][]; answeredBy: string; called: string[] }>([
    { name: 'first route answers', routes: [['ok'], ['ok']], answeredBy: 'p1', called: ['p1'] },
    { name: 'second route after a provider error', routes: [['INFERENCE_3105'], ['ok']], answeredBy: 'p2', called: ['p1', 'p2'] },
    { name: 'second route after a timeout', routes: [['INFERENCE_3107'], ['ok']], answeredBy: 'p2', called: ['p1', 'p2'] },
    { name: 'second route after a provider rate limit', routes: [['INFERENCE_3108'], ['ok']], answeredBy: 'p2', called: ['p1', 'p2'] },
    { name: 'third route after two transient failures', routes: [['INFERENCE_3105'], ['INFERENCE_3107'], ['ok']], answeredBy: 'p3', called: ['p1', 'p2', 'p3'] },
    { name: 'a retryable gateway-side error moves on too', routes: [['SYSTEM_9001'], ['ok']], answeredBy: 'p2', called: ['p1', 'p2'] },
  ])('$name', async ({ routes, answeredBy, called }) => {
    const outcome = await run(routes);
    expect(outcome.error).toBeUndefined();
    expect(outcome.result).toEqual({ result: `answer from ${answeredBy}`, candidate: expect.objectContaining({ providerId: answeredBy }) });
    expect(outcome.called).toEqual(called);
  });

  it('with several routes, a failed route is not retried (the next one is tried instead)', async () => {
    const outcome = await run([['INFERENCE_3105', 'ok'], ['INFERENCE_3105', 'ok']]);
    expect(outcome.called).toEqual(['p1', 'p2']);
    expect((outcome.error as GatewayError).code).toBe('INFERENCE_3103');
  });

  it.each<{ name: string; code: ErrorCode }>([
    { name: 'content filter', code: 'INFERENCE_3208' },
    { name: 'context window', code: 'INFERENCE_3207' },
    { name: 'validation error', code: 'VALIDATION_4005' },
    { name: 'billing error', code: 'BILLING_2001' },
    { name: 'no provider for this endpoint', code: 'INFERENCE_3104' },
  ])('a non-retryable $name stops at once, without waiting', async ({ code }) => {
    const outcome = await run([[code], ['ok']]);
    expect((outcome.error as GatewayError).code).toBe(code);
    expect(outcome.called).toEqual(['p1']);
    expect(outcome.delays).toEqual([]);
  });

  it('an error that is not a GatewayError stops at once and is rethrown as is', async () => {
    const outcome = await run([['plain-error'], ['ok']]);
    expect(outcome.error).toBeInstanceOf(TypeError);
    expect(outcome.called).toEqual(['p1']);
  });

  it.each<ErrorCode>(['INFERENCE_3105', 'INFERENCE_3107', 'INFERENCE_3108'])('a single failing route keeps its own code %s', async (code) => {
    const outcome = await run([[code]]);
    expect((outcome.error as GatewayError).code).toBe(code);
    expect((outcome.error as GatewayError).message).toBe(`${code} from p1`);
  });

  it.each<{ routes: ErrorCode[] }>([{ routes: ['INFERENCE_3105', 'INFERENCE_3107'] }, { routes: ['INFERENCE_3108', 'INFERENCE_3105', 'INFERENCE_3107'] }])(
    'all of $routes failing → INFERENCE_3103 with details.attempts',
    async ({ routes }) => {
      const outcome = await run(routes.map((code) => [code]));
      const error = outcome.error as GatewayError;
      expect(error.code).toBe('INFERENCE_3103');
      expect(error.status).toBe(502);
      expect(error.retryable).toBe(true);
      expect(error.details).toEqual({
        attempts: routes.map((code, index) => ({ provider: `p${index + 1}`, code, message: `${code} from p${index + 1}` })),
      });
      expect((error.cause as GatewayError).code).toBe(routes.at(-1));
      expect(error.headers).toEqual({});
    },
  );

  it('INFERENCE_3103 carries the soonest Retry-After when every failure had one', async () => {
    const outcome = await run([[{ code: 'INFERENCE_3108', retryAfter: '30' }], [{ code: 'INFERENCE_3108', retryAfter: '12' }]]);
    expect((outcome.error as GatewayError).code).toBe('INFERENCE_3103');
    expect((outcome.error as GatewayError).headers).toEqual({ 'retry-after': '12' });
  });

  it('maxAttempts bounds the attempts', async () => {
    const outcome = await run([['INFERENCE_3105'], ['INFERENCE_3105'], ['ok']], { maxAttempts: 2 });
    expect(outcome.called).toEqual(['p1', 'p2']);
    expect((outcome.error as GatewayError).details).toEqual({ attempts: [expect.objectContaining({ provider: 'p1' }), expect.objectContaining({ provider: 'p2' })] });
  });
});

describe('tryRoutes: waits between attempts', () => {
  it('backs off exponentially with jitter between routes (base 100 ms, cap 2 s)', async () => {
    const outcome = await run([['INFERENCE_3105'], ['INFERENCE_3105'], ['INFERENCE_3107'], ['INFERENCE_3105'], ['INFERENCE_3105'], ['INFERENCE_3105'], ['INFERENCE_3105'], ['ok']]);
    expect(outcome.result?.candidate.providerId).toBe('p8');
    // half of 100, 200, 400, 800, 1600, 2000 (cap), 2000
    expect(outcome.delays).toEqual([50, 100, 200, 400, 800, 1_000, 1_000]);
  });

  it('a custom backoff policy is used', async () => {
    const outcome = await run([['INFERENCE_3105'], ['INFERENCE_3105'], ['ok']], { backoff: { baseMs: 10, capMs: 15, random: () => 1 } });
    expect(outcome.delays).toEqual([10, 15]);
  });

  it('no wait after the last route fails', async () => {
    const outcome = await run([['INFERENCE_3105'], ['INFERENCE_3105']]);
    expect(outcome.delays).toEqual([50]);
  });

  it.each<{ name: string; retryAfter: string; delays: number[] }>([
    { name: 'within the cap: waited exactly', retryAfter: '1', delays: [1_000] },
    { name: 'fractional seconds', retryAfter: '0.25', delays: [250] },
    { name: 'exactly the cap', retryAfter: '2', delays: [2_000] },
    { name: 'beyond the cap: no wait, the next route at once', retryAfter: '30', delays: [] },
    { name: 'an HTTP date 1.5 s ahead', retryAfter: new Date(1_000_000 + 1_500).toUTCString(), delays: [1_000] },
    { name: 'an HTTP date in the past: no wait', retryAfter: new Date(1_000_000 - 60_000).toUTCString(), delays: [] },
    { name: 'unreadable: plain backoff', retryAfter: 'later', delays: [50] },
  ])('Retry-After $name', async ({ retryAfter, delays }) => {
    // HTTP dates have whole seconds: 1_001_500 ms renders as second 1001 → 1_000 ms ahead.
    const outcome = await run([[{ code: 'INFERENCE_3108', retryAfter }], ['ok']], { clock: fakeClock() });
    expect(outcome.result?.candidate.providerId).toBe('p2');
    expect(outcome.delays).toEqual(delays);
  });

  it('a client abort during the wait stops at once: no further attempt', async () => {
    const controller = new AbortController();
    const attempt = vi.fn(async () => {
      throw new GatewayError('INFERENCE_3105', 'down');
    });
    const sleep = vi.fn(async (_milliseconds: number, signal: AbortSignal) => {
      controller.abort();
      if (signal.aborted) throw new Error('aborted');
    });
    await expect(tryRoutes([candidate('p1'), candidate('p2')], controller.signal, attempt, { sleep })).rejects.toMatchObject({ code: 'INFERENCE_3105' });
    expect(attempt).toHaveBeenCalledTimes(1);
    expect(sleep).toHaveBeenCalledTimes(1);
  });

  it('the real sleep is cut short by the abort (a 10 s backoff ends in milliseconds)', async () => {
    const controller = new AbortController();
    const attempt = vi.fn(async () => {
      setTimeout(() => controller.abort(), 20);
      throw new GatewayError('INFERENCE_3105', 'down');
    });
    const started = Date.now();
    const outcome = tryRoutes([candidate('p1'), candidate('p2')], controller.signal, attempt, { sleep: abortableSleep, backoff: { baseMs: 10_000, capMs: 10_000, random: () => 0.99 } });
    await expect(outcome).rejects.toMatchObject({ code: 'INFERENCE_3105' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('an abort during an attempt: rethrown, no wait, no blame on the route', async () => {
    const controller = new AbortController();
    const clock = fakeClock();
    const health = new RouteHealth(clock);
    const outcome = await run([['INFERENCE_3105'], ['ok']], { signal: controller.signal, health, onAttempt: () => controller.abort() });
    expect((outcome.error as GatewayError).code).toBe('INFERENCE_3105');
    expect(outcome.called).toEqual(['p1']);
    expect(outcome.delays).toEqual([]);
    expect(health.snapshot().routes).toEqual({});
  });

  it('an already aborted request tries nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const attempt = vi.fn(async () => 'x');
    await expect(tryRoutes([candidate('p1')], controller.signal, attempt)).rejects.toMatchObject({ code: 'SYSTEM_9003' });
    expect(attempt).not.toHaveBeenCalled();
  });
});

describe('tryRoutes: one more try when the model has a single route', () => {
  it.each<{ name: string; outcomes: Outcome[]; called: number; answered: boolean; delays: number[] }>([
    { name: '5xx then success', outcomes: [{ code: 'INFERENCE_3105', upstreamStatus: 503 }, 'ok'], called: 2, answered: true, delays: [50] },
    { name: 'connection error (no status) then success', outcomes: ['INFERENCE_3105', 'ok'], called: 2, answered: true, delays: [50] },
    { name: '429 with a short Retry-After, then success', outcomes: [{ code: 'INFERENCE_3108', retryAfter: '1' }, 'ok'], called: 2, answered: true, delays: [1_000] },
    { name: 'twice 5xx: only one retry', outcomes: [{ code: 'INFERENCE_3105', upstreamStatus: 500 }], called: 2, answered: false, delays: [50] },
    { name: 'timeout: not retried', outcomes: ['INFERENCE_3107', 'ok'], called: 1, answered: false, delays: [] },
    { name: '401 (credentials): not retried', outcomes: [{ code: 'INFERENCE_3105', upstreamStatus: 401 }, 'ok'], called: 1, answered: false, delays: [] },
    { name: '404 (model config): not retried', outcomes: [{ code: 'INFERENCE_3105', upstreamStatus: 404 }, 'ok'], called: 1, answered: false, delays: [] },
    { name: '429 with a long Retry-After: not retried', outcomes: [{ code: 'INFERENCE_3108', retryAfter: '7' }, 'ok'], called: 1, answered: false, delays: [] },
    { name: '429 without Retry-After: not retried', outcomes: ['INFERENCE_3108', 'ok'], called: 1, answered: false, delays: [] },
    { name: 'gateway-side error: not retried', outcomes: ['SYSTEM_9001', 'ok'], called: 1, answered: false, delays: [] },
  ])('$name', async ({ outcomes, called, answered, delays }) => {
    const outcome = await run([outcomes]);
    expect(outcome.called).toHaveLength(called);
    expect(outcome.delays).toEqual(delays);
    if (answered) expect(outcome.result?.result).toBe('answer from p1');
    else expect(outcome.error).toBeInstanceOf(GatewayError);
  });

  it('a single route failing twice keeps its own code and headers, not INFERENCE_3103', async () => {
    const outcome = await run([[{ code: 'INFERENCE_3108', retryAfter: '1' }]]);
    expect(outcome.called).toEqual(['p1', 'p1']);
    expect((outcome.error as GatewayError).code).toBe('INFERENCE_3108');
    expect((outcome.error as GatewayError).headers).toEqual({ 'Retry-After': '1' });
  });

  it('retrySingleRoute: false turns it off', async () => {
    const outcome = await run([['INFERENCE_3105', 'ok']], { retrySingleRoute: false });
    expect(outcome.called).toEqual(['p1']);
    expect((outcome.error as GatewayError).code).toBe('INFERENCE_3105');
  });

  it('maxAttempts 1 turns it off too', async () => {
    const outcome = await run([['INFERENCE_3105', 'ok']], { maxAttempts: 1 });
    expect(outcome.called).toEqual(['p1']);
  });

  it.each<{ code: ErrorCode; details?: Record<string, unknown>; retryAfterMs?: number; expected: boolean }>([
    { code: 'INFERENCE_3105', expected: true },
    { code: 'INFERENCE_3105', details: { upstream_status: 502 }, expected: true },
    { code: 'INFERENCE_3105', details: { upstream_status: 403 }, expected: false },
    { code: 'INFERENCE_3107', expected: false },
    { code: 'INFERENCE_3108', retryAfterMs: 2_000, expected: true },
    { code: 'INFERENCE_3108', retryAfterMs: 2_001, expected: false },
    { code: 'INFERENCE_3108', expected: false },
    { code: 'SYSTEM_9001', expected: false },
  ])('worthRetryingSameRoute($code, $details, $retryAfterMs) → $expected', ({ code, details, retryAfterMs, expected }) => {
    expect(worthRetryingSameRoute(new GatewayError(code, undefined, details), retryAfterMs, 2_000)).toBe(expected);
  });
});

describe('tryRoutes: route health', () => {
  it('records failures of the routes that failed and the latency of the one that answered', async () => {
    const clock = fakeClock();
    const health = new RouteHealth(clock);
    const outcome = await run([['INFERENCE_3105'], [{ code: 'INFERENCE_3108', retryAfter: '30' }], ['ok']], {
      health,
      onAttempt: (providerId) => {
        // each attempt "takes" 250 ms (p3's is the one that is measured)
        clock.time += providerId === 'p3' ? 250 : 10;
      },
    });
    expect(outcome.result?.candidate.providerId).toBe('p3');
    const routes = health.snapshot().routes;
    expect(routes['p1/m']).toMatchObject({ coolingDown: true, consecutiveFailures: 1, latencyMs: undefined });
    expect(routes['p1/m']!.cooldownEndsAt - clock.time).toBeGreaterThan(4_000);
    // the 429's Retry-After (30 s) sets p2's cooldown, counted from when the failure was seen
    expect(routes['p2/m']!.cooldownEndsAt).toBe(1_000_000 + 10 + 10 + 30_000);
    expect(routes['p3/m']).toEqual({ coolingDown: false, cooldownEndsAt: 0, consecutiveFailures: 0, latencyMs: 250 });
  });

  it('a success after a same-route retry clears that route', async () => {
    const health = new RouteHealth(fakeClock());
    await run([['INFERENCE_3105', 'ok']], { health });
    expect(health.snapshot().routes['p1/m']).toMatchObject({ coolingDown: false, consecutiveFailures: 0 });
  });

  it.each<{ name: string; code: ErrorCode }>([
    { name: 'non-retryable errors', code: 'INFERENCE_3208' },
    { name: 'gateway-side errors', code: 'SYSTEM_9001' },
  ])('$name do not count against the route', async ({ code }) => {
    const health = new RouteHealth(fakeClock());
    await run([[code], ['ok']], { health });
    expect(health.snapshot().routes['p1/m']).toBeUndefined();
  });

  it('uses the health clock to time attempts when no clock is given', async () => {
    const clock = fakeClock();
    const health = new RouteHealth(clock);
    await tryRoutes([candidate('p1')], new AbortController().signal, async () => {
      clock.time += 42;
      return 'x';
    }, { health });
    expect(health.snapshot().routes['p1/m']!.latencyMs).toBe(42);
  });
});
