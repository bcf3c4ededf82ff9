import { describe, expect, it } from 'vitest';
import { driveStream, peek, peekBatches, type StreamSource, type StreamTransform } from '../../../src/inference/index.js';

/** A transform that drops odd numbers, holds back the number 4 until the end, and is exhausted at `stopAt`. */
class Evens implements StreamTransform<number> {
  held: number[] = [];
  constructor(private readonly stopAt = Number.POSITIVE_INFINITY) {}
  exhausted = false;
  apply(item: number): boolean {
    if (item >= this.stopAt) this.exhausted = true;
    if (item === 4) {
      this.held.push(item);
      return false;
    }
    return item % 2 === 0;
  }
  flush(): number[] {
    return this.held.splice(0);
  }
}

async function* numbers(count: number, failAt?: number, onReturn?: () => void): AsyncGenerator<number> {
  try {
    for (let item = 1; item <= count; item += 1) {
      if (item === failAt) throw new Error(`upstream broke at ${item}`);
      yield item;
    }
  } finally {
    onReturn?.();
  }
}

/** The same items, two per batch (one batch per upstream read). */
async function* pairs(items: AsyncGenerator<number>): AsyncGenerator<number[]> {
  let batch: number[] = [];
  try {
    for await (const item of items) {
      batch.push(item);
      if (batch.length === 2) yield batch.splice(0);
    }
  } catch (error) {
    if (batch.length > 0) yield batch;
    batch = [];
    throw error;
  }
  if (batch.length > 0) yield batch;
}

/** Stage "drive the stream": what reaches the sink, in what order, and how the stream ends — item by item or batched. */
describe.each([false, true])('driveStream (batched: %s)', (batched) => {
  it.each([
    { name: 'everything passes without transforms', count: 5, transforms: false, stopAt: undefined, failAt: undefined, abortAt: undefined, sent: [1, 2, 3, 4, 5], observed: 5, failed: false, aborted: false },
    { name: 'transforms drop and hold back; held items come last', count: 6, transforms: true, stopAt: undefined, failAt: undefined, abortAt: undefined, sent: [2, 6, 4], observed: 6, failed: false, aborted: false },
    { name: 'an exhausted transform stops the upstream early', count: 9, transforms: true, stopAt: 3, failAt: undefined, abortAt: undefined, sent: [2], observed: 3, failed: false, aborted: false },
    { name: 'a failure mid-stream is returned, nothing is flushed', count: 6, transforms: true, stopAt: undefined, failAt: 5, abortAt: undefined, sent: [2], observed: 4, failed: true, aborted: false },
    { name: 'an abort stops after the item in hand, nothing is flushed', count: 6, transforms: true, stopAt: undefined, failAt: undefined, abortAt: 4, sent: [2], observed: 4, failed: false, aborted: true },
  ])('$name', async ({ count, transforms, stopAt, failAt, abortAt, sent, observed, failed, aborted }) => {
    const abort = new AbortController();
    let returned = false;
    const seen: number[] = [];
    const received: number[] = [];
    const source = numbers(count, failAt, () => (returned = true));
    const stream: StreamSource<number> = batched ? await peekBatches(pairs(source)) : await peek(source);
    const result = await driveStream(
      abort.signal,
      stream,
      (item) => {
        received.push(item);
        return item === 2 ? Promise.resolve() : undefined;
      },
      {
        tap: { observe: (item) => (seen.push(item), item === abortAt && abort.abort()) },
        transforms: transforms ? [new Evens(stopAt)] : [],
      },
    );
    expect(received).toEqual(sent);
    expect(seen).toHaveLength(observed);
    expect(result.items).toBe(observed);
    expect(result.failure !== undefined).toBe(failed);
    expect(result.aborted).toBe(aborted);
    if (stopAt !== undefined) expect(returned).toBe(true);
  });
});
