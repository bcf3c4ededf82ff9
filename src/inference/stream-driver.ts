import type { PeekedStream } from './call.js';
import type { StreamTransform, UsageTap } from './transforms/transform.js';

/**
 * Where driven items go: the surface mapper and its writer. Returns a promise only when the
 * writer pushes back (wait for it before the next item), so the hot loop pays no await per item.
 */
export type StreamSink<T> = (item: T) => Promise<void> | undefined;

export interface DriveOptions<T> {
  /** Sees every upstream item first (usage, output text), before transforms rewrite it. */
  tap?: UsageTap<T>;
  /** Applied in order; an item any of them drops goes no further. */
  transforms?: ReadonlyArray<StreamTransform<T>>;
}

export interface DriveResult {
  /** What ended the stream early, if anything did (the upstream's error, the sink's): not yet wrapped. */
  failure: unknown;
  /** The caller went away: nothing more is written. */
  aborted: boolean;
  /** How many upstream items arrived. */
  items: number;
}

/**
 * Stage "drive the stream": the one loop every streaming surface runs (chat, messages, responses
 * turns, native pass-throughs, blueprint direct answers). It owns iteration, backpressure,
 * abort and early stop: each upstream item goes to the usage tap, through the transforms, and to
 * the sink; when the caller aborts the loop stops; when a transform can pass nothing more the
 * upstream is stopped at once; at the end the transforms release what they held back. It never
 * throws: a failure is returned for the caller to meter and report on its own wire.
 */
export async function driveStream<T>(signal: AbortSignal, stream: PeekedStream<T>, sink: StreamSink<T>, options: DriveOptions<T> = {}): Promise<DriveResult> {
  const { tap, transforms = [] } = options;
  let items = 0;
  try {
    let step = stream.first;
    while (step.done !== true) {
      const item = step.value;
      items += 1;
      tap?.observe(item);
      if (passes(item, transforms)) {
        const pushback = sink(item);
        if (pushback !== undefined) await pushback;
      }
      if (signal.aborted) break;
      if (transforms.some((transform) => transform.exhausted)) {
        // Nothing more will be sent: stop the upstream now rather than read it to the end.
        await stream.iterator.return?.();
        break;
      }
      step = await stream.iterator.next();
    }
    if (!signal.aborted && items > 0) {
      for (let index = 0; index < transforms.length; index += 1) {
        for (const held of transforms[index]!.flush()) {
          if (!passes(held, transforms.slice(index + 1))) continue;
          const pushback = sink(held);
          if (pushback !== undefined) await pushback;
        }
      }
    }
  } catch (failure) {
    return { failure: failure ?? new Error('stream failed'), aborted: signal.aborted, items };
  }
  return { failure: undefined, aborted: signal.aborted, items };
}

function passes<T>(item: T, transforms: ReadonlyArray<StreamTransform<T>>): boolean {
  for (const transform of transforms) if (!transform.apply(item)) return false;
  return true;
}
