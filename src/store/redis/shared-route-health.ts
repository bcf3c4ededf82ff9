import type { Redis } from 'ioredis';
import type { RouteHealth, SharedCooldown } from '../../routing/health.js';
import type { Logger } from '../../util/logger.js';

const CHANNEL = 'igw:route-health';
const KEY_PREFIX = 'igw:cooldown:';

interface CooldownMessage extends SharedCooldown {
  key: string;
  /** The instance that published it (it already applied the change itself). */
  from: string;
}

/**
 * Route cooldowns shared through Redis (team mode, DESIGN §4): a route that fails on one instance
 * is tried last on every instance until its cooldown ends, and a success anywhere ends it. Each
 * change is published; the current cooldowns are also kept as expiring keys, so an instance that
 * starts later begins with them. Latency averages stay per instance (each measures its own path).
 * Cooldown ends are wall-clock times: instances need roughly synchronised clocks (NTP).
 */
export async function shareRouteHealth(health: RouteHealth, redis: Redis, subscriber: Redis, instanceId: string, logger: Logger): Promise<void> {
  subscriber.on('message', (channel: string, text: string) => {
    if (channel !== CHANNEL) return;
    try {
      const message = JSON.parse(text) as CooldownMessage;
      if (message.from !== instanceId) health.applySharedCooldown(message.key, message);
    } catch (error) {
      logger.warn('team mode: unreadable route-health message', { error: String(error) });
    }
  });
  await subscriber.subscribe(CHANNEL);
  for (const name of await redis.keys(`${KEY_PREFIX}*`)) {
    const text = await redis.get(name);
    if (text !== null) health.applySharedCooldown(name.slice(KEY_PREFIX.length), JSON.parse(text) as SharedCooldown);
  }
  health.observeCooldowns((key, cooldown) => {
    const message: CooldownMessage = { key, from: instanceId, ...cooldown };
    const remaining = cooldown.cooldownEndsAt - Date.now();
    const stored = cooldown.consecutiveFailures === 0 || remaining <= 0 ? redis.del(`${KEY_PREFIX}${key}`) : redis.set(`${KEY_PREFIX}${key}`, JSON.stringify(cooldown), 'PX', Math.ceil(remaining));
    void Promise.all([stored, redis.publish(CHANNEL, JSON.stringify(message))]).catch((error: unknown) =>
      logger.warn('team mode: a route cooldown could not be shared through Redis', { route: key, error: String(error) }),
    );
  });
}
