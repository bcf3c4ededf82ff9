import type { Redis } from 'ioredis';
import { RateLimiter, rateLimitExceeded, type RateLimitState, type RequestRateLimiter } from '../../auth/rate-limit.js';
import type { Logger } from '../../util/logger.js';

const WINDOW_MS = 60_000;

/**
 * One atomic step of the fixed window (DESIGN §5, the same window as in memory: it opens with the
 * key's first request and lasts a minute): count this request, open the window if it is the
 * first, and return the count and the time left. Atomic in Redis, so N instances admit exactly
 * `limit` requests per window between them.
 */
const TAKE = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
`;

/**
 * Per-key requests per minute in Redis (team mode, `redis.url`). While Redis is unreachable the
 * limit falls back to this instance's in-memory window (logged), so requests are not refused for it.
 */
export class RedisRateLimiter implements RequestRateLimiter {
  private readonly fallback = new RateLimiter();
  private degradedLogged = false;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  async take(keyId: string, limit: number, nowMs: number): Promise<RateLimitState> {
    let reply: [number, number];
    try {
      reply = (await this.redis.eval(TAKE, 1, `igw:rate:${keyId}`, String(WINDOW_MS))) as [number, number];
    } catch (error) {
      if (!this.degradedLogged) {
        this.degradedLogged = true;
        this.logger.warn('team mode: rate limits counted in memory on this instance while Redis is unreachable', { error: String(error) });
      }
      return this.fallback.take(keyId, limit, nowMs);
    }
    this.degradedLogged = false;
    const [count, ttl] = reply;
    const resetMs = ttl > 0 ? ttl : WINDOW_MS;
    if (count > limit) throw rateLimitExceeded(limit, resetMs);
    return { limit, remaining: limit - count, resetMs };
  }
}
