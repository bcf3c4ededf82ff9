import type { Logger } from '../../util/logger.js';
import type { ChangeFeed } from './change-feed.js';

/** The channel the `igw_records` triggers announce on (migrations/1764150000000_records.sql). */
export const RECORDS_CHANNEL = 'igw_records';

/** One announced change: which record (or the collection's meta, key null) and the row's version. */
export interface RecordChange {
  collection: string;
  key: string | null;
  op: 'put' | 'delete' | 'meta';
  version: number;
}

export interface RecordSubscriber {
  change(change: RecordChange): void;
  /** The feed was lost and is back: changes may have been missed. */
  resync(): Promise<void>;
}

/**
 * Routes the one `igw_records` channel to the collections open on this instance, by name: every
 * collection shares one LISTEN (ChangeFeed), and changes to collections this instance has not
 * opened (another instance's vector store manifest…) are dropped — it reads them when it opens them.
 * Built before the ChangeFeed starts, so the channel is listened to from the first connection.
 */
export class RecordFeed {
  private readonly collections = new Map<string, RecordSubscriber>();

  constructor(
    feed: ChangeFeed,
    readonly logger: Logger,
  ) {
    feed.subscribe(RECORDS_CHANNEL, { change: (payload) => this.route(payload), resync: () => this.resync() });
  }

  /** Registers an open collection; returns its unregistration. One cache per collection per instance. */
  register(name: string, subscriber: RecordSubscriber): () => void {
    if (this.collections.has(name)) throw new Error(`team store: collection ${name} is already open on this instance`);
    this.collections.set(name, subscriber);
    return () => {
      if (this.collections.get(name) === subscriber) this.collections.delete(name);
    };
  }

  private route(payload: string): void {
    const change = JSON.parse(payload) as RecordChange;
    this.collections.get(change.collection)?.change({ ...change, version: Number(change.version) });
  }

  private async resync(): Promise<void> {
    await Promise.all([...this.collections.values()].map((subscriber) => subscriber.resync()));
  }
}
