import { describe, expect, it } from 'vitest';
import { RateLimiter, formatResetDuration, rateLimitHeaders } from '../../../src/auth/rate-limit.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';

const T0 = 1_700_000_000_000;

function rateLimited(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected AUTH_1028');
}

describe('formatResetDuration', () => {
  it.each<[number, string]>([
    [0, '0ms'],
    [-5, '0ms'],
    [1, '1ms'],
    [250, '250ms'],
    [250.2, '251ms'],
    [999, '999ms'],
    [1000, '1s'],
    [1001, '2s'],
    [59_000, '59s'],
    [59_001, '1m0s'],
    [60_000, '1m0s'],
    [61_000, '1m1s'],
    [360_000, '6m0s'],
    [3_599_000, '59m59s'],
  ])('%d ms → %s', (milliseconds, expected) => {
    expect(formatResetDuration(milliseconds)).toBe(expected);
  });
});

describe('rateLimitHeaders', () => {
  it.each<{ state: { limit: number; remaining: number; resetMs: number }; expected: Record<string, string> }>([
    { state: { limit: 600, remaining: 599, resetMs: 60_000 }, expected: { 'x-ratelimit-limit-requests': '600', 'x-ratelimit-remaining-requests': '599', 'x-ratelimit-reset-requests': '1m0s' } },
    { state: { limit: 20, remaining: 0, resetMs: 1500 }, expected: { 'x-ratelimit-limit-requests': '20', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '2s' } },
  ])('renders $state', ({ state, expected }) => {
    expect(rateLimitHeaders(state)).toEqual(expected);
  });
});

describe('RateLimiter', () => {
  it.each([1, 3, 20])('allows exactly %d requests per window, counting remaining down', (limit) => {
    const limiter = new RateLimiter();
    for (let index = 1; index <= limit; index += 1) {
      const state = limiter.take('key', limit, T0 + index);
      expect(state).toEqual({ limit, remaining: limit - index, resetMs: 60_000 - (index - 1) });
    }
    const error = rateLimited(() => limiter.take('key', limit, T0 + limit + 1));
    expect(error.code).toBe('AUTH_1028');
    expect(error.status).toBe(429);
    expect(error.retryable).toBe(true);
  });

  it.each<{ elapsedMs: number; retryAfter: string; reset: string }>([
    { elapsedMs: 0, retryAfter: '60', reset: '1m0s' },
    { elapsedMs: 30_000, retryAfter: '30', reset: '30s' },
    { elapsedMs: 58_500, retryAfter: '2', reset: '2s' },
    { elapsedMs: 59_999, retryAfter: '1', reset: '1ms' },
  ])('AUTH_1028 after $elapsedMs ms carries retry-after $retryAfter and the rate-limit headers', ({ elapsedMs, retryAfter, reset }) => {
    const limiter = new RateLimiter();
    limiter.take('key', 1, T0);
    const error = rateLimited(() => limiter.take('key', 1, T0 + elapsedMs));
    expect(error.headers).toEqual({
      'retry-after': retryAfter,
      'x-ratelimit-limit-requests': '1',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': reset,
    });
    expect(error.details).toEqual({ limit: 1 });
  });

  it('resets when the one-minute window has passed', () => {
    const limiter = new RateLimiter();
    limiter.take('key', 2, T0);
    limiter.take('key', 2, T0 + 10);
    expect(() => limiter.take('key', 2, T0 + 59_999)).toThrow(GatewayError);
    expect(limiter.take('key', 2, T0 + 60_000)).toEqual({ limit: 2, remaining: 1, resetMs: 60_000 });
    expect(limiter.take('key', 2, T0 + 60_001)).toEqual({ limit: 2, remaining: 0, resetMs: 59_999 });
  });

  it('a refused request does not count', () => {
    const limiter = new RateLimiter();
    limiter.take('key', 1, T0);
    for (let index = 0; index < 5; index += 1) expect(() => limiter.take('key', 1, T0 + 1000 + index)).toThrow(GatewayError);
    expect(limiter.take('key', 1, T0 + 60_000).remaining).toBe(0);
  });

  it('counts each key separately', () => {
    const limiter = new RateLimiter();
    limiter.take('a', 1, T0);
    expect(() => limiter.take('a', 1, T0 + 1)).toThrow(GatewayError);
    expect(limiter.take('b', 1, T0 + 1)).toEqual({ limit: 1, remaining: 0, resetMs: 60_000 });
  });
});
