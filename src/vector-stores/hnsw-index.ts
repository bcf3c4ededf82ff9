import { chmod, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import hnswlib from 'hnswlib-node';

const { HierarchicalNSW } = hnswlib;
type NativeIndex = InstanceType<typeof HierarchicalNSW>;

/**
 * HNSW parameters. M=16 / efConstruction=100 / ef=128 keep recall@10 above 0.95 at 100k × 384
 * (bench/vector-search.mjs measures it); ef grows with k at query time.
 */
export const HNSW_PARAMS = { m: 16, efConstruction: 100, efSearch: 128 } as const;

/** Adding more points than this at once runs in a worker thread (hnswlib's addPoint is synchronous). */
export const WORKER_BUILD_THRESHOLD = 2000;

export interface Neighbor {
  label: number;
  /** Cosine similarity in [-1, 1]. */
  score: number;
}

/**
 * The only user of hnswlib-node (ARCHITECTURE principle 7): a cosine HNSW index over integer
 * labels, grown with resizeIndex, deletions with markDelete, saved atomically (temp + rename).
 */
export class HnswIndex {
  private constructor(
    private native: NativeIndex,
    readonly dimensions: number,
  ) {}

  static create(dimensions: number, capacity = 1024): HnswIndex {
    const native = new HierarchicalNSW('cosine', dimensions);
    native.initIndex({ maxElements: Math.max(16, capacity), m: HNSW_PARAMS.m, efConstruction: HNSW_PARAMS.efConstruction, randomSeed: 100 });
    native.setEf(HNSW_PARAMS.efSearch);
    return new HnswIndex(native, dimensions);
  }

  /** Reads a saved index (hnswlib reads off the main thread). */
  static async load(filePath: string, dimensions: number): Promise<HnswIndex> {
    const native = new HierarchicalNSW('cosine', dimensions);
    await native.readIndex(filePath);
    native.setEf(HNSW_PARAMS.efSearch);
    return new HnswIndex(native, dimensions);
  }

  /** Points stored, deleted ones included (they keep their slot). */
  get size(): number {
    return this.native.getCurrentCount();
  }

  labels(): number[] {
    return this.native.getIdsList();
  }

  /** Adds points on this thread, growing capacity first (a full index refuses addPoint). */
  add(vectors: readonly (readonly number[])[], labels: readonly number[]): void {
    this.reserve(vectors.length);
    for (let index = 0; index < vectors.length; index += 1) this.native.addPoint(vectors[index] as number[], labels[index]!);
  }

  private reserve(extra: number): void {
    const needed = this.native.getCurrentCount() + extra;
    const capacity = this.native.getMaxElements();
    if (needed > capacity) this.native.resizeIndex(Math.max(needed, capacity * 2));
  }

  /**
   * Adds many points in a worker thread: the worker loads a snapshot of this index (or starts
   * empty), adds the points, writes the result, and this index swaps to it. The caller must hold
   * the store's write lock and save nothing meanwhile.
   */
  async addInWorker(vectors: readonly (readonly number[])[], labels: readonly number[], scratchPath: string): Promise<void> {
    const basePath = `${scratchPath}.base`;
    const outPath = `${scratchPath}.out`;
    try {
      const hasPoints = this.size > 0;
      if (hasPoints) await this.native.writeIndex(basePath);
      await buildInWorker({ basePath: hasPoints ? basePath : null, outPath, dimensions: this.dimensions, capacity: this.size + vectors.length, vectors, labels });
      const native = new HierarchicalNSW('cosine', this.dimensions);
      await native.readIndex(outPath);
      native.setEf(this.native.getEf());
      this.native = native;
    } finally {
      await rm(basePath, { force: true });
      await rm(outPath, { force: true });
    }
  }

  /** False when the label was already deleted or never added. */
  markDeleted(label: number): boolean {
    try {
      this.native.markDelete(label);
      return true;
    } catch {
      return false;
    }
  }

  /** A stored point (unit length: the cosine space normalises on insert). */
  vector(label: number): number[] {
    return this.native.getPoint(label);
  }

  /** Best first. `accept` limits the candidates (hnswlib filters during the graph walk). */
  search(query: readonly number[], k: number, accept?: (label: number) => boolean): Neighbor[] {
    const capacity = this.native.getMaxElements();
    const wanted = Math.min(k, capacity);
    if (wanted <= 0 || this.size === 0) return [];
    this.native.setEf(Math.max(HNSW_PARAMS.efSearch, wanted * 2));
    const result = accept === undefined ? this.native.searchKnn(query as number[], wanted) : this.native.searchKnn(query as number[], wanted, accept);
    return result.neighbors.map((label, index) => ({ label, score: 1 - result.distances[index]! }));
  }

  /** Writes to a temp file and renames, so a crash leaves the previous snapshot intact. */
  async save(filePath: string): Promise<void> {
    const temporary = `${filePath}.tmp`;
    await this.native.writeIndex(temporary);
    // hnswlib creates the file with the process umask; data dir files are 0600 (DESIGN §6).
    await chmod(temporary, 0o600);
    await rename(temporary, filePath);
  }
}

interface WorkerJob {
  basePath: string | null;
  outPath: string;
  dimensions: number;
  capacity: number;
  vectors: readonly (readonly number[])[];
  labels: readonly number[];
}

/**
 * The worker's code, evaluated as CommonJS: the same source works from `src/` under vitest and
 * from `dist/` (a separate .js worker file would not exist beside the .ts sources).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { HierarchicalNSW } = require(workerData.modulePath);
(async () => {
  const { job, params } = workerData;
  const index = new HierarchicalNSW('cosine', job.dimensions);
  if (job.basePath) {
    await index.readIndex(job.basePath);
    if (index.getMaxElements() < job.capacity) index.resizeIndex(job.capacity);
  } else {
    index.initIndex({ maxElements: Math.max(16, job.capacity), m: params.m, efConstruction: params.efConstruction, randomSeed: 100 });
  }
  const flat = new Float32Array(job.flat);
  const dimensions = job.dimensions;
  const point = new Array(dimensions);
  for (let row = 0; row < job.labels.length; row += 1) {
    for (let column = 0; column < dimensions; column += 1) point[column] = flat[row * dimensions + column];
    index.addPoint(point, job.labels[row]);
  }
  await index.writeIndex(job.outPath);
  parentPort.postMessage('done');
})().catch((error) => { throw error; });
`;

/** Builds an index in a worker thread (the vectors travel as one transferred Float32Array). */
export async function buildInWorker(job: WorkerJob): Promise<void> {
  const flat = new Float32Array(job.vectors.length * job.dimensions);
  job.vectors.forEach((vector, row) => flat.set(vector, row * job.dimensions));
  const modulePath = createRequire(import.meta.url).resolve('hnswlib-node');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { modulePath, params: HNSW_PARAMS, job: { basePath: job.basePath, outPath: job.outPath, dimensions: job.dimensions, capacity: job.capacity, labels: [...job.labels], flat: flat.buffer } },
    transferList: [flat.buffer],
  });
  await new Promise<void>((resolve, reject) => {
    let finished = false;
    worker.once('message', () => {
      finished = true;
      resolve();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!finished) reject(new Error(`index build worker exited with code ${code}`));
    });
  });
  await worker.terminate();
}
