/**
 * Bounded exponential backoff with full jitter (the AWS "Exponential Backoff and Jitter" scheme):
 * the n-th wait is uniform in [0, min(cap, base × 2^n)). Full jitter spreads the retries of many
 * concurrent requests that failed together, so they do not hit the next route in lockstep.
 */
export interface BackoffPolicy {
  /** Ceiling of the first wait. */
  baseMs: number;
  /** No wait is ever longer than this. */
  capMs: number;
  /** A number in [0, 1); injected so tests (and reproducible runs) get exact delays. */
  random: () => number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 100, capMs: 2_000, random: Math.random };

/** The wait before retry number `retryIndex` (0 = the first retry), in whole milliseconds. */
export function backoffDelayMs(retryIndex: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const ceiling = backoffCeilingMs(retryIndex, policy);
  // Clamp the random source: a custom one returning exactly 1 must still stay under the ceiling.
  const fraction = Math.min(Math.max(policy.random(), 0), 1);
  return Math.min(Math.floor(fraction * ceiling), ceiling);
}

/** The upper bound of the n-th wait: base × 2^n, never above the cap (and safe for huge n). */
export function backoffCeilingMs(retryIndex: number, policy: Pick<BackoffPolicy, 'baseMs' | 'capMs'> = DEFAULT_BACKOFF): number {
  const exponent = Math.max(0, Math.floor(retryIndex));
  // 2^31 × any sane base is already past any cap; stopping there avoids Infinity arithmetic.
  const growth = exponent >= 31 ? Number.POSITIVE_INFINITY : 2 ** exponent;
  return Math.max(0, Math.min(policy.capMs, policy.baseMs * growth));
}
