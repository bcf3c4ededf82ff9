import type { StreamSource } from './call.js';
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
 * upstream is stopped at once; at the end the transforms release what they held back. A batched
 * source costs one async step per upstream read, not per item (issue 18 item 3); the checks
 * still run per item. It never throws: a failure is returned for the caller to meter and report
 * on its own wire.
 */
export async function driveStream<T>(signal: { readonly aborted: boolean }, stream: StreamSource<T>, sink: StreamSink<T>, options: DriveOptions<T> = {}): Promise<DriveResult> {
  const { tap, transforms = [] } = options;
  let items = 0;
  const nextBatch = async (): Promise<IteratorResult<readonly T[]>> => {
    if ('batches' in stream) return stream.iterator.next();
    const step = await stream.iterator.next();
    return step.done === true ? step : { done: false, value: [step.value] };
  };
  try {
    let step: IteratorResult<readonly T[]> = 'batches' in stream ? stream.first : stream.first.done === true ? stream.first : { done: false, value: [stream.first.value] };
    reading: while (step.done !== true) {
      for (const item of step.value) {
        items += 1;
        tap?.observe(item);
        if (passes(item, transforms)) {
          const pushback = sink(item);
          if (pushback !== undefined) await pushback;
        }
        if (signal.aborted) break reading;
        if (transforms.some((transform) => transform.exhausted)) {
          // Nothing more will be sent: stop the upstream now rather than read it to the end.
          await stream.iterator.return?.();
          break reading;
        }
      }
      step = await nextBatch();
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
