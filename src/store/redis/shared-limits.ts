import { randomUUID } from 'node:crypto';
import type { RequestRateLimiter } from '../../auth/rate-limit.js';
import type { RouteHealth } from '../../routing/health.js';
import type { Logger } from '../../util/logger.js';
import { openRedis } from './connection.js';
import { RedisRateLimiter } from './rate-limiter.js';
import { shareRouteHealth } from './shared-route-health.js';

export interface SharedLimits {
  rateLimiter: RequestRateLimiter;
  close(): Promise<void>;
}

/**
 * `redis.url` (DESIGN §4 "Team mode"): per-key rate limits and route cooldowns shared by every
 * instance on this Redis. Unreachable at start is an error (the config asked for it); later
 * outages degrade to this instance's memory, logged.
 */
export async function openSharedLimits(url: string, health: RouteHealth, logger: Logger): Promise<SharedLimits> {
  const commands = openRedis(url, logger, 'commands');
  const subscriber = openRedis(url, logger, 'route health');
  const close = async () => {
    commands.disconnect();
    subscriber.disconnect();
  };
  try {
    await commands.connect();
    await subscriber.connect();
    await shareRouteHealth(health, commands, subscriber, randomUUID(), logger);
  } catch (error) {
    await close();
    throw new Error(`cannot use Redis at ${url.replace(/\/\/[^@/]*@/, '//')} (redis.url in the config): ${String(error)}`);
  }
  return { rateLimiter: new RedisRateLimiter(commands, logger), close };
}
