import { GatewayError } from '../errors/gateway-error.js';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/** OpenAI-style duration for x-ratelimit-reset-requests ("1s", "6m0s", "250ms"). */
export function formatResetDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${Math.max(0, Math.ceil(milliseconds))}ms`;
  const seconds = Math.ceil(milliseconds / 1000);
  const minutes = Math.floor(seconds / 60);
  return minutes === 0 ? `${seconds}s` : `${minutes}m${seconds % 60}s`;
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return setRateLimitHeaders({}, state);
}

/** The same headers set on a request's own header record (the server's: no object in between). */
export function setRateLimitHeaders(headers: Record<string, string>, state: RateLimitState): Record<string, string> {
  headers['x-ratelimit-limit-requests'] = String(state.limit);
  headers['x-ratelimit-remaining-requests'] = String(state.remaining);
  headers['x-ratelimit-reset-requests'] = formatResetDuration(state.resetMs);
  return headers;
}

/**
 * What the request path needs from a rate limiter. The in-memory one answers synchronously (no
 * promise on the hot path); the Redis one (team mode, exact across instances) answers with a promise.
 */
export interface RequestRateLimiter {
  take(keyId: string, limit: number, nowMs: number): RateLimitState | Promise<RateLimitState>;
}

/** AUTH_1028 with Retry-After (whole seconds until the window resets), DESIGN §5. */
export function rateLimitExceeded(limit: number, resetMs: number): GatewayError {
  const state = { limit, remaining: 0, resetMs };
  return new GatewayError('AUTH_1028', `Rate limit of ${limit} requests per minute reached for this key; retry in ${Math.ceil(resetMs / 1000)}s.`, { limit }, {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(resetMs / 1000))), ...rateLimitHeaders(state) },
  });
}

interface Window {
  startedAt: number;
  count: number;
}

/**
 * Per-key requests per minute (DESIGN §5): a fixed one-minute window per key, in memory.
 * Over the limit → AUTH_1028 with Retry-After (whole seconds until the window resets).
 */
export class RateLimiter implements RequestRateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly windowMs = 60_000;

  take(keyId: string, limit: number, nowMs: number): RateLimitState {
    let window = this.windows.get(keyId);
    if (window === undefined || nowMs - window.startedAt >= this.windowMs) {
      window = { startedAt: nowMs, count: 0 };
      this.windows.set(keyId, window);
      if (this.windows.size > 10_000) this.sweep(nowMs);
    }
    const resetMs = window.startedAt + this.windowMs - nowMs;
    if (window.count >= limit) throw rateLimitExceeded(limit, resetMs);
    window.count += 1;
    return { limit, remaining: limit - window.count, resetMs };
  }

  private sweep(nowMs: number): void {
    for (const [key, window] of this.windows) if (nowMs - window.startedAt >= this.windowMs) this.windows.delete(key);
  }
}
