import { Redis } from 'ioredis';
import type { Logger } from '../../util/logger.js';

/**
 * A Redis connection for team mode. Commands fail fast while Redis is unreachable (no offline
 * queue, one retry) so a request never waits on a dead Redis; the connection keeps reconnecting.
 */
export function openRedis(url: string, logger: Logger, role: string): Redis {
  const redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: () => 1000 });
  let warned = false;
  redis.on('error', (error: Error) => {
    if (warned) return;
    warned = true;
    logger.warn(`team mode: Redis (${role}) unreachable; retrying every second`, { error: String(error) });
  });
  redis.on('ready', () => {
    if (warned) logger.info(`team mode: Redis (${role}) back`);
    warned = false;
  });
  return redis;
}
