/**
 * Timer source handed to background jobs next to the Clock, so tests can run a day of scheduled
 * work by advancing a manual clock instead of sleeping. A callback may return a promise; test
 * timers await it, system timers leave it running (the job guards its own errors).
 */
export interface Timers {
  setTimeout(callback: () => unknown, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export interface TimerHandle {
  readonly id: unknown;
}

/** Node's timers, unref'd: a pending background job never keeps the process alive. */
export const systemTimers: Timers = {
  setTimeout(callback, ms) {
    const timer = setTimeout(() => void callback(), Math.max(0, ms));
    timer.unref();
    return { id: timer };
  },
  clearTimeout(handle) {
    clearTimeout(handle.id as NodeJS.Timeout);
  },
};
