import { EventEmitter } from 'node:events';

/**
 * A caller's abort (a client that goes away, a deadline), cheap on the request path (issue 18
 * item 3): an AbortController costs ~3 µs to create and its signal ~1–2 µs per add/remove of a
 * listener, paid by every request although almost none is ever aborted. This is a plain emitter
 * with `aborted` and `reason` (undici accepts it as a request's `signal`); a real AbortSignal is
 * made only when a consumer asks for `signal` (an image fetch, a retry wait, an adapter that
 * takes one), already aborted when the abort came first.
 */
export class CallerAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  private controller: AbortController | undefined;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    this.emit('abort');
  }
}

/** What a stage that only watches for the abort accepts: either kind. */
export type AbortWatch = AbortSignal | CallerAbort;

/** Calls `listener` once when `watch` aborts; returns the function that stops watching. */
export function onAbort(watch: AbortWatch, listener: () => void): () => void {
  if (watch instanceof CallerAbort) {
    watch.once('abort', listener);
    return () => watch.off('abort', listener);
  }
  watch.addEventListener('abort', listener, { once: true });
  return () => watch.removeEventListener('abort', listener);
}

/** A real AbortSignal for `watch` (made on demand for a CallerAbort). */
export function signalOf(watch: AbortWatch): AbortSignal {
  return watch instanceof CallerAbort ? watch.signal : watch;
}
