import type { KbRemote, VectorStoreFile } from './remote.js';

/** Time between rounds. */
const ROUND_MS = 150;
/** A round with no tracked file finishing for this long ends the wait for all of them. */
const STALL_MS = 10 * 60_000;

interface Waiter {
  resolve(file: VectorStoreFile | null): void;
  reject(error: unknown): void;
}

/** No tracked file finished ingesting for STALL_MS: the gateway is stuck on this store. */
export class IngestionStalledError extends Error {
  constructor() {
    super(`ingestion made no progress for ${STALL_MS / 60_000} minutes`);
    this.name = 'IngestionStalledError';
  }
}

/**
 * Follows the ingestion of every file a sync attached, with few requests whatever their number:
 * each round lists the store's files still `in_progress` (100 per request), and only a tracked
 * file that left that list is fetched, once, for its outcome. Polling each file on its own would
 * send thousands of requests a second while a large folder is being indexed.
 */
export class IngestionTracker {
  private readonly waiters = new Map<string, Waiter>();
  private running = false;
  private lastProgress = Date.now();

  constructor(
    private readonly remote: KbRemote,
    private readonly storeId: string,
  ) {}

  /** The file once it is no longer in progress, or null when it was detached meanwhile. */
  follow(fileId: string): Promise<VectorStoreFile | null> {
    const done = new Promise<VectorStoreFile | null>((resolve, reject) => this.waiters.set(fileId, { resolve, reject }));
    if (!this.running) {
      this.running = true;
      this.lastProgress = Date.now();
      void this.run();
    }
    return done;
  }

  private async run(): Promise<void> {
    try {
      while (this.waiters.size > 0) {
        await new Promise((resolve) => setTimeout(resolve, ROUND_MS));
        await this.round();
      }
    } finally {
      this.running = false;
    }
  }

  private async round(): Promise<void> {
    let inProgress: Set<string>;
    try {
      inProgress = new Set((await this.remote.listFiles(this.storeId, 'in_progress')).map((file) => file.id));
    } catch (error) {
      this.rejectAll(error);
      return;
    }
    for (const [fileId, waiter] of [...this.waiters]) {
      if (inProgress.has(fileId)) continue;
      try {
        const file = await this.remote.getFile(this.storeId, fileId);
        if (file.status === 'in_progress') continue; // attached after the listing
        this.settle(fileId, () => waiter.resolve(file));
      } catch (error) {
        // Detached meanwhile (the file changed again): nothing to report for this version.
        if ((error as { status?: number }).status === 404) this.settle(fileId, () => waiter.resolve(null));
        else {
          this.rejectAll(error);
          return;
        }
      }
    }
    if (this.waiters.size > 0 && Date.now() - this.lastProgress > STALL_MS) this.rejectAll(new IngestionStalledError());
  }

  private settle(fileId: string, notify: () => void): void {
    this.waiters.delete(fileId);
    this.lastProgress = Date.now();
    notify();
  }

  private rejectAll(error: unknown): void {
    const waiters = [...this.waiters.values()];
    this.waiters.clear();
    for (const waiter of waiters) waiter.reject(error);
  }
}
