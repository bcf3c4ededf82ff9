import { setTimeout as delay } from 'node:timers/promises';

/** The shape routing accepts for waiting, so tests can record delays instead of spending them. */
export type Sleep = (milliseconds: number, signal: AbortSignal) => Promise<void>;

/**
 * Waits, but gives up the moment `signal` aborts (rejecting with the abort reason): a client that
 * went away must not keep a backoff timer, and the route loop behind it, alive.
 */
export const abortableSleep: Sleep = async (milliseconds, signal) => {
  if (signal.aborted) throw signal.reason;
  if (milliseconds <= 0) return;
  await delay(milliseconds, undefined, { signal });
};
