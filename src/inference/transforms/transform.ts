/**
 * A stream transform between the upstream and the surface mapper (output railguards today).
 * Transforms rewrite items in place: adapters hand over fresh objects, so no copy per event.
 */
export interface StreamTransform<T> {
  /** Rewrites the item in place; false when nothing of it is left to pass on. */
  apply(item: T): boolean;
  /** True once nothing more can pass: the driver stops the upstream early. */
  readonly exhausted: boolean;
  /** Items held back, released once the upstream has ended (not after a failure or an abort). */
  flush(): T[];
}

/** Watches every upstream item, before any transform, for what the call is billed on. */
export interface UsageTap<T> {
  observe(item: T): void;
}
