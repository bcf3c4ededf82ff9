import { neighborsFrom, type Neighbor } from './hnsw-search-message.js';

/**
 * The searches' own lane to the index thread: a ring of request/answer slots in shared memory
 * instead of a postMessage each way (issue 16: the gateway's event loop is the search bench's
 * bottleneck, and a MessagePort hop costs it a structured serialisation, a transfer and, on the
 * way back, a message event dispatch per search). The event loop writes a request into the next
 * slot and rings with Atomics.notify; the thread (hnsw-worker-source.ts) learns of it with
 * Atomics.waitAsync, answers in the same slot, in ring order, and rings back. A notify with
 * nobody waiting is a no-op, so a busy side is never woken: several answers that arrive while
 * the event loop is busy are read in one turn.
 *
 * Layout (Int32 units). Control: [requests written, requests answered], each a wrapping int32
 * counter. Slot n of SLOT_COUNT is SLOT_INTS long: request at 0: [key, k, ranges length,
 * dimensions], the query as Float32, the (start, count) label ranges as Int32; answer at
 * ANSWER_AT: [n], n Int32 labels, n Float32 cosine distances; n = -1 is a failure, its message
 * as [byte length] and UTF-8 bytes. A search that does not fit (a long range list, k > 255) or
 * finds the ring full takes the message lane (hnsw-search-message.ts): same walk, same answer.
 */
export const SLOT_COUNT = 32;
export const SLOT_INTS = 2048;
export const ANSWER_AT = 1536;
const REQUEST_HEADER_INTS = 4;
/** Control words. */
export const WRITTEN = 0;
export const ANSWERED = 1;

/** The layout's numbers, for the thread's side (workerData). */
export const RING_LAYOUT = { slotCount: SLOT_COUNT, slotInts: SLOT_INTS, answerAt: ANSWER_AT, written: WRITTEN, answered: ANSWERED };

/** What the thread needs to open the same ring (workerData). */
export interface SlotRing {
  control: SharedArrayBuffer;
  slots: SharedArrayBuffer;
}

interface Waiter {
  resolve(neighbors: Neighbor[]): void;
  reject(error: Error): void;
}

const decoder = new TextDecoder();

/** Atomics.waitAsync (Node 16+; ES2024, newer than this project's TypeScript lib). */
const waitAsync = (Atomics as unknown as {
  waitAsync(array: Int32Array, index: number, value: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

/** The event loop's side of the ring: writes requests, reads answers in ring order. */
export class SearchSlots {
  readonly ring: SlotRing = {
    control: new SharedArrayBuffer(2 * 4),
    slots: new SharedArrayBuffer(SLOT_COUNT * SLOT_INTS * 4),
  };
  private readonly control = new Int32Array(this.ring.control);
  private readonly ints = new Int32Array(this.ring.slots);
  private readonly floats = new Float32Array(this.ring.slots);
  private readonly waiters = new Array<Waiter | undefined>(SLOT_COUNT);
  private written = 0;
  private read = 0;
  /** An Atomics.waitAsync on ANSWERED is pending (at most one at a time). */
  private listening = false;

  /** `idle` runs when the last owed answer was read (the owner stops keeping the process alive). */
  constructor(private readonly idle: () => void) {}

  /** Searches written and not yet answered. */
  get owed(): number {
    return (this.written - this.read) | 0;
  }

  /** Whether this search can take a slot now (else it takes the message lane). */
  fits(dimensions: number, k: number, rangeInts: number): boolean {
    return this.owed < SLOT_COUNT && REQUEST_HEADER_INTS + dimensions + rangeInts <= ANSWER_AT && 1 + 2 * k <= SLOT_INTS - ANSWER_AT;
  }

  /** Writes the request into the next slot and rings; `fits` said yes. */
  send(key: number, query: ArrayLike<number>, k: number, ranges: Int32Array | undefined, waiter: Waiter): void {
    const slot = this.written & (SLOT_COUNT - 1);
    const base = slot * SLOT_INTS;
    const rangeInts = ranges?.length ?? 0;
    const ints = this.ints;
    ints[base] = key;
    ints[base + 1] = k;
    ints[base + 2] = rangeInts;
    ints[base + 3] = query.length;
    this.floats.set(query, base + REQUEST_HEADER_INTS);
    if (ranges !== undefined) ints.set(ranges, base + REQUEST_HEADER_INTS + query.length);
    this.waiters[slot] = waiter;
    this.written = (this.written + 1) | 0;
    // The store publishes the slot's bytes to the thread (Atomics are sequentially consistent).
    Atomics.store(this.control, WRITTEN, this.written);
    Atomics.notify(this.control, WRITTEN, 1);
    if (!this.listening) this.listen();
  }

  /** The thread is gone: every search it owed fails (their slots are never answered). */
  failAll(error: Error): void {
    while (this.read !== this.written) this.nextWaiter().waiter.reject(error);
  }

  /** Reads every answer written so far, then waits for the next while any search is owed. */
  private readonly listen = (): void => {
    this.listening = false;
    for (;;) {
      const answered = Atomics.load(this.control, ANSWERED);
      while (this.read !== answered && this.read !== this.written) this.take();
      if (this.read === this.written) return this.idle();
      const wait = waitAsync(this.control, ANSWERED, answered);
      if (wait.async) {
        this.listening = true;
        void wait.value.then(this.listen);
        return;
      }
    }
  };

  /** The oldest unread slot and its waiter, which leaves the ring. */
  private nextWaiter(): { slot: number; waiter: Waiter } {
    const slot = this.read & (SLOT_COUNT - 1);
    const waiter = this.waiters[slot]!;
    this.waiters[slot] = undefined;
    this.read = (this.read + 1) | 0;
    return { slot, waiter };
  }

  private take(): void {
    const { slot, waiter } = this.nextWaiter();
    const at = slot * SLOT_INTS + ANSWER_AT;
    const ints = this.ints;
    const count = ints[at]!;
    if (count < 0) {
      const length = ints[at + 1]!;
      // TextDecoder does not read shared memory: copied out first.
      const bytes = new Uint8Array(length);
      bytes.set(new Uint8Array(this.ring.slots, (at + 2) * 4, length));
      waiter.reject(new Error(decoder.decode(bytes)));
      return;
    }
    waiter.resolve(neighborsFrom(ints.subarray(at + 1, at + 1 + count), this.floats.subarray(at + 1 + count, at + 1 + 2 * count)));
  }
}
