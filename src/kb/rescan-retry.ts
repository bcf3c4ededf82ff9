import { backoffDelayMs, type BackoffPolicy } from '../util/backoff.js';

/** Waits between rescans while the gateway cannot take files: 1 s, 2 s, 4 s … up to 30 s (jittered). */
export const RESCAN_BACKOFF: BackoffPolicy = { baseMs: 1000, capMs: 30_000, random: Math.random };
/** Never sooner than this (full jitter can draw 0). */
const MIN_WAIT_MS = 250;

/**
 * `kb sync --watch` while the gateway is unreachable: each gateway fault asks for a rescan; the
 * rescans run with growing waits until one gets through without a fault, which resets the wait.
 * The rescan reads the folder and the store again, so files created, changed or deleted while the
 * gateway was down are all caught, not only those that failed.
 */
export class RescanRetry {
  private attempt = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly rescan: () => void,
    private readonly onScheduled: (waitMs: number) => void = () => undefined,
    private readonly policy: BackoffPolicy = RESCAN_BACKOFF,
  ) {}

  /** A gateway fault happened: rescan after the next wait (one pending rescan at a time). */
  request(): void {
    if (this.stopped || this.timer !== null) return;
    const waitMs = Math.max(MIN_WAIT_MS, backoffDelayMs(this.attempt, this.policy));
    this.attempt += 1;
    this.onScheduled(waitMs);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.stopped) this.rescan();
    }, waitMs);
  }

  /** A pass went through without a gateway fault: the next fault starts from the shortest wait. */
  succeeded(): void {
    this.attempt = 0;
  }

  get pending(): boolean {
    return this.timer !== null;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
