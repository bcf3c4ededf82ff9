import pg from 'pg';
import type { Logger } from '../../util/logger.js';

export interface FeedSubscriber {
  /** One change, as its trigger announced it (a JSON row). */
  change(payload: string): void;
  /** The connection was lost and is back: changes may have been missed, reload everything. */
  resync(): Promise<void>;
}

/**
 * One LISTEN connection per instance for the tables it caches (keys, accounts). PostgreSQL sends
 * notifications in commit order, so applying them in arrival order converges on the database.
 * A lost connection is retried every second; after it comes back, each subscriber reloads.
 */
export class ChangeFeed {
  private client: pg.Client | null = null;
  private readonly subscribers = new Map<string, FeedSubscriber>();
  private closed = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
  ) {}

  subscribe(channel: string, subscriber: FeedSubscriber): void {
    this.subscribers.set(channel, subscriber);
  }

  /** Connects and listens; resolves once every channel is listened to (before the caches load, so no change is missed). */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (message) => {
      const subscriber = this.subscribers.get(message.channel);
      if (subscriber === undefined || message.payload === undefined) return;
      try {
        subscriber.change(message.payload);
      } catch (error) {
        this.logger.error('team store: a change notification could not be applied', { channel: message.channel, error: String(error) });
      }
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    await client.connect();
    for (const channel of this.subscribers.keys()) await client.query(`LISTEN ${channel}`);
    this.client = client;
  }

  private lost(client: pg.Client, error: Error): void {
    if (this.closed || this.client !== client) return;
    this.client = null;
    this.logger.warn('team store: lost the change feed from PostgreSQL; reconnecting', { error: String(error) });
    void client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry !== null) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.reconnect();
    }, 1000);
    this.retry.unref();
  }

  private async reconnect(): Promise<void> {
    try {
      await this.start();
      for (const subscriber of this.subscribers.values()) await subscriber.resync();
      this.logger.info('team store: change feed back; caches reloaded');
    } catch (error) {
      this.logger.warn('team store: change feed still down', { error: String(error) });
      this.scheduleReconnect();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry !== null) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
