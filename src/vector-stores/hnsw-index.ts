import { chmod, rename } from 'node:fs/promises';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { answerId, neighborsOf, searchRequest, type Neighbor } from './hnsw-search-message.js';
import { RING_LAYOUT, SearchSlots } from './hnsw-search-slots.js';
import { HNSW_WORKER_SOURCE } from './hnsw-worker-source.js';

export type { Neighbor } from './hnsw-search-message.js';

/**
 * HNSW parameters. M=16 / efConstruction=100 / ef=128 keep recall@10 above 0.95 at 100k × 384 on
 * clustered vectors like a real model's (bench/vector-search.mjs); ef grows with k at query time
 * (max(efSearch, 2k)). On local-embed's hashed vectors the walk finds far less, and what counts is
 * the store search's answer: bench/ann-fused.mjs compares its fused top 10 with the same search
 * over an exact semantic side (k 30, 200 three-word queries; CPU per walk on this 2-core VM):
 * - kept 100k-chunk store of bench/ingest.mjs's synthetic notes (near-isotropic, the worst case):
 *   M 16 / efC 100 at ef 32 / 64 / 96 / 128: 0.74 / 0.80 / 0.82 / 0.84 in common, 210 / 350 /
 *   460 / 610 µs; M 24 / efC 100 at ef 48 / 64 / 96: 0.83 / 0.85 / 0.87, 420 / 485 / 650 µs;
 *   M 32 at ef 48: 0.85, 520 µs; efC 200 adds ~0.01. Building costs ~2× per point at M 24
 *   (1.4 ms against 0.74 ms at 100k).
 * - 100k chunks of real text (bench/real-text.mjs over /usr/share/man, clustered by topic):
 *   M 16 at ef 128: 0.92, 375–460 µs; M 24 at ef 64 / 96 / 128: 0.89 / 0.91 / 0.92, 210 µs at 64.
 * So a wider graph walked at ef 64 keeps the synthetic answers for ~20% less CPU but loses three
 * points on real text; no graph gives those answers on both for less, and M / efC stay.
 * What does: the lexical side proposing 60 candidates instead of 30 (hybrid-search.ts), each a dot
 * product on the vector copy. Against a reference search with an exact semantic side and 200
 * lexical candidates, at 60 lexical candidates: synthetic store ef 48 / 64 / 96 / 128: 0.958 /
 * 0.962 / 0.966 / 0.969 in common (339 / 368 / 489 / 711 µs); man pages 0.930 / 0.934 / 0.940 /
 * 0.951 (150 / 177 / 230 / 285 µs). The former 30 with ef 128 gave 0.842 and 0.897 against it.
 * Hence ef 64: better answers than before on both corpora for ~40% less walk.
 */
export const HNSW_PARAMS = { m: 16, efConstruction: 100, efSearch: 64 } as const;

/** A large add runs in slices of this many points, searches of the same index answered between them. */
export const ADD_SLICE_POINTS = 256;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  /** A call's index key (a change or a read; undefined for a search): that index's searches take the slots only while it owes none. */
  key: number | undefined;
}

/**
 * The one thread that holds every store's hnswlib graph (hnsw-worker-source.ts). A single thread
 * for all stores, not one per store: each thread costs its own heap, and two cores gain nothing
 * from more. It keeps the process alive only while it owes an answer.
 *
 * Two lanes: calls (and searches that do not fit a slot) are messages, answered in order for
 * changes; searches go through shared-memory slots (hnsw-search-slots.ts), the cheaper hop for
 * the event loop. Order is kept as one message queue would keep it, per index: a search takes
 * the slots only while its index owes no call (so a search sent after a change was sent is a
 * message behind it, and waits for it as before), and the thread answers every slot written
 * before it reads its next message (so a change sent after a search waits for it). A change never runs inside a searchKnn:
 * the thread runs one JavaScript task at a time, and searchKnn is synchronous.
 */
class IndexThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private readonly slots = new SearchSlots(() => this.settled());
  private nextId = 0;
  /** Calls sent and not yet answered, by index key (see the class comment). */
  private readonly callsOwed = new Map<number, number>();
  private failure: Error | null = null;

  constructor() {
    const modulePath = createRequire(import.meta.url).resolve('hnswlib-node');
    this.worker = new Worker(HNSW_WORKER_SOURCE, {
      eval: true,
      workerData: { modulePath, params: HNSW_PARAMS, addSlice: ADD_SLICE_POINTS, ring: this.slots.ring, ringLayout: RING_LAYOUT },
    });
    this.worker.unref();
    this.worker.on('message', (message: ArrayBuffer | { id: number; result?: unknown; error?: string }) => {
      // A search's answer comes as a bare buffer (hnsw-search-message.ts), everything else as an object.
      const id = message instanceof ArrayBuffer ? answerId(message) : message.id;
      const waiting = this.pending.get(id);
      if (waiting === undefined) return;
      this.pending.delete(id);
      if (waiting.key !== undefined) this.answered(waiting.key);
      this.settled();
      if (message instanceof ArrayBuffer) waiting.resolve(neighborsOf(message));
      else if (message.error !== undefined) waiting.reject(new Error(message.error));
      else waiting.resolve(message.result);
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      if (thread === this) thread = null;
      for (const waiting of this.pending.values()) waiting.reject(this.failure);
      this.pending.clear();
      this.callsOwed.clear();
      this.slots.failAll(this.failure);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the HNSW index thread exited with code ${code}`)));
  }

  /** The thread is gone (it exited or threw): every graph it held is lost, and no call will be answered. */
  get failed(): boolean {
    return this.failure !== null;
  }

  /**
   * Ends the thread as a crash would (the 'exit' handler above fails what it owed). The thread
   * exits between two messages: Worker.terminate() during a searchKnn makes the addon's next N-API
   * call fail inside native code, which aborts the whole process (seen in CI).
   */
  async terminate(): Promise<void> {
    const exited = once(this.worker, 'exit');
    this.worker.postMessage({ id: -1, op: 'exit' });
    await exited;
  }

  call<T>(op: string, request: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<T> {
    return this.send<T>(request.key as number, (id) => this.worker.postMessage({ id, op, ...request }, transfer));
  }

  /** A search: a slot when it fits and no call is owed, else one transferred buffer each way (hnsw-search-message.ts). */
  search(key: number, query: ArrayLike<number>, k: number, ranges: Int32Array | undefined): Promise<Neighbor[]> {
    if (this.failure === null && !this.callsOwed.has(key) && this.slots.fits(query.length, k, ranges?.length ?? 0)) {
      if (this.owed() === 0) this.worker.ref();
      return new Promise<Neighbor[]>((resolve, reject) => this.slots.send(key, query, k, ranges, { resolve, reject }));
    }
    return this.send<Neighbor[]>(undefined, (id) => {
      const request = searchRequest(id, key, query, k, ranges);
      this.worker.postMessage(request, [request]);
    });
  }

  private owed(): number {
    return this.pending.size + this.slots.owed;
  }

  /** Nothing owed any more: the thread no longer keeps the process alive. */
  private settled(): void {
    if (this.owed() === 0) this.worker.unref();
  }

  private answered(key: number): void {
    const owed = this.callsOwed.get(key)!;
    if (owed === 1) this.callsOwed.delete(key);
    else this.callsOwed.set(key, owed - 1);
  }

  private send<T>(key: number | undefined, post: (id: number) => void): Promise<T> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const id = this.nextId++;
    if (this.owed() === 0) this.worker.ref();
    if (key !== undefined) this.callsOwed.set(key, (this.callsOwed.get(key) ?? 0) + 1);
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, key });
      post(id);
    });
  }
}

let thread: IndexThread | null = null;
let nextKey = 0;

/** The live index thread; after one died (an OOM, an exit), the next index created or loaded starts a new one. */
function indexThread(): IndexThread {
  thread ??= new IndexThread();
  return thread;
}

/**
 * Ends the index thread the way a crash does (tests of the recovery: StoreData reopens its index
 * on a new thread, see `lost`). Resolves once the thread has exited.
 */
export async function endIndexThread(): Promise<void> {
  await thread?.terminate();
}

/**
 * A store's cosine HNSW index over integer labels (the only user of hnswlib-node, ARCHITECTURE
 * principle 7), held by the index thread: this object is its handle on the event loop. Every
 * call is a message, answered in order for changes; the graph is never copied to this thread
 * (RSS: the 100k × 384 index is ~200 MB). Grown with resizeIndex, deletions with markDelete,
 * saved atomically (temp + rename).
 */
export class HnswIndex {
  private constructor(
    private readonly thread: IndexThread,
    /** The index's name on the thread (a number: it travels in the search buffer's header). */
    private readonly key: number,
    readonly dimensions: number,
    private count: number,
  ) {}

  static create(dimensions: number, capacity = 1024): HnswIndex {
    const host = indexThread();
    const index = new HnswIndex(host, nextKey++, dimensions, 0);
    // Ordered before any later call on this index; a failure surfaces there.
    host.call('create', { key: index.key, dimensions, capacity }).catch(() => undefined);
    return index;
  }

  /** Reads a saved index (hnswlib reads off both threads' event loops). */
  static async load(filePath: string, dimensions: number): Promise<HnswIndex> {
    const host = indexThread();
    const key = nextKey++;
    const count = await host.call<number>('load', { key, path: filePath, dimensions });
    return new HnswIndex(host, key, dimensions, count);
  }

  /**
   * The thread holding this graph died: the graph is gone and every call fails. The owner loads
   * the index again (HnswIndex.load starts a new thread), from its snapshot and sealed vectors.
   */
  get lost(): boolean {
    return this.thread.failed;
  }

  /** Points stored, deleted ones included (they keep their slot). */
  get size(): number {
    return this.count;
  }

  async labels(): Promise<number[]> {
    return [...(await this.thread.call<Int32Array>('labels', { key: this.key }))];
  }

  /** Adds points (the vectors travel as one transferred Float32Array). */
  async add(vectors: readonly (readonly number[])[], labels: readonly number[]): Promise<void> {
    if (vectors.length === 0) return;
    const flat = new Float32Array(vectors.length * this.dimensions);
    vectors.forEach((vector, row) => flat.set(vector, row * this.dimensions));
    this.count = await this.thread.call<number>('add', { key: this.key, flat, labels: Int32Array.from(labels) }, [flat.buffer]);
  }

  /** Marks labels deleted; resolves to how many were live (the rest were already deleted or never added). */
  markDeleted(labels: readonly number[]): Promise<number> {
    return this.thread.call<number>('markDeleted', { key: this.key, labels: Int32Array.from(labels) });
  }

  /** Stored points (unit length: the cosine space normalises on insert), one row per label; a zero row for a label the index lacks. */
  vectors(labels: readonly number[]): Promise<Float32Array> {
    return this.thread.call<Float32Array>('vectors', { key: this.key, labels: Int32Array.from(labels), dimensions: this.dimensions });
  }

  /**
   * Best first. `acceptRanges` limits the candidates to labels in (start, count) pairs sorted by
   * start (hnswlib filters during the graph walk).
   */
  async search(query: ArrayLike<number>, k: number, acceptRanges?: Int32Array): Promise<Neighbor[]> {
    if (k <= 0 || this.count === 0) return [];
    return this.thread.search(this.key, query, k, acceptRanges);
  }

  /** Writes to a temp file and renames, so a crash leaves the previous snapshot intact. */
  async save(filePath: string): Promise<void> {
    const temporary = `${filePath}.tmp`;
    await this.thread.call('save', { key: this.key, path: temporary });
    // hnswlib creates the file with the process umask; data dir files are 0600 (DESIGN §6).
    await chmod(temporary, 0o600);
    await rename(temporary, filePath);
  }

  /** Frees the graph (after the last save). */
  close(): Promise<void> {
    return this.thread.call<boolean>('drop', { key: this.key }).then(() => undefined);
  }
}
