import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { HnswIndex } from '../../../src/vector-stores/hnsw-index.js';

const require = createRequire(import.meta.url);
const { HierarchicalNSW } = require('hnswlib-node') as typeof import('hnswlib-node');

const DIMENSIONS = 384;

function vector(seed: number): number[] {
  let state = seed * 2654435761 + 5;
  return Array.from({ length: DIMENSIONS }, () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  });
}

function unit(values: readonly number[]): number[] {
  const norm = Math.hypot(...values);
  return values.map((value) => value / norm);
}

/** Whether the installed addon takes a Float32Array query (the build scripts/hnswlib-simd.mjs makes). */
function takesFloat32Queries(): boolean {
  const probe = new HierarchicalNSW('cosine', 2);
  probe.initIndex({ maxElements: 1, m: 2, efConstruction: 2, randomSeed: 100 });
  probe.addPoint([1, 0], 7);
  try {
    return probe.searchKnn(new Float32Array([1, 0]) as unknown as number[], 1).neighbors[0] === 7;
  } catch {
    return false;
  }
}

/** Whether the installed addon takes the filter as an Int32Array of (start, count) label ranges (scripts/hnswlib-patches/range-filter.mjs). */
function takesRangeFilters(): boolean {
  const probe = new HierarchicalNSW('cosine', 2);
  probe.initIndex({ maxElements: 2, m: 2, efConstruction: 2, randomSeed: 100 });
  probe.addPoint([1, 0], 7);
  probe.addPoint([0, 1], 9);
  try {
    return probe.searchKnn([1, 0], 1, new Int32Array([8, 2]) as unknown as (label: number) => boolean).neighbors[0] === 9;
  } catch {
    return false;
  }
}

/** Whether the installed addon adds a Float32Array point and reads one into a Float32Array (scripts/hnswlib-patches/typed-points.mjs). */
function takesTypedPoints(): boolean {
  const probe = new HierarchicalNSW('cosine', 2);
  probe.initIndex({ maxElements: 1, m: 2, efConstruction: 2, randomSeed: 100 });
  try {
    probe.addPoint(new Float32Array([3, 4]) as unknown as number[], 5);
    return true;
  } catch {
    return false;
  }
}

/** 3,000 points at the store's parameters (M 16, efConstruction 100, ef 64), one of them deleted (the walk's non-bare path). */
function walkedGraph(deleted: number): InstanceType<typeof HierarchicalNSW> {
  const index = new HierarchicalNSW('cosine', DIMENSIONS);
  index.initIndex({ maxElements: 3_000, m: 16, efConstruction: 100, randomSeed: 100 });
  for (let label = 0; label < 3_000; label += 1) index.addPoint(vector(label), label);
  index.markDelete(deleted);
  index.setEf(64);
  return index;
}

/** kB of transparent huge pages this process holds. */
function hugePagesKb(): number {
  return Number(/AnonHugePages:\s+(\d+) kB/.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'))?.[1] ?? 0);
}

/**
 * Whether the kernel gives huge pages only to memory that asks for them (THP "madvise", Debian's
 * default) and the installed addon asks (the build scripts/hnswlib-patches/huge-pages.mjs makes):
 * only then does the graph's memory show whether it asked.
 */
function hugePagesOnRequest(): boolean {
  try {
    const mode = readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8');
    const addon = readFileSync(require.resolve('hnswlib-node/build/Release/addon.node'));
    return mode.includes('[madvise]') && addon.includes('madvise');
  } catch {
    return false;
  }
}

describe('the HNSW query as it reaches hnswlib', () => {
  it('answers a 384-dimension search on the index thread with the exact cosine neighbours and scores', async () => {
    const index = HnswIndex.create(DIMENSIONS, 64);
    const labels = Array.from({ length: 120 }, (_, label) => label);
    const points = labels.map(vector);
    await index.add(points, labels);
    for (const seed of [1_000, 1_001, 1_002]) {
      const query = vector(seed);
      const q = unit(query);
      // ef 128 over 120 points: the walk sees every point.
      const exact = points
        .map((point, label) => ({ label, score: unit(point).reduce((sum, value, column) => sum + value * q[column]!, 0) }))
        .sort((left, right) => right.score - left.score)
        .slice(0, 10);
      const hits = await index.search(query, 10);
      expect(hits.map((hit) => hit.label)).toEqual(exact.map((hit) => hit.label));
      hits.forEach((hit, rank) => expect(hit.score).toBeCloseTo(exact[rank]!.score, 5));
    }
    await index.close();
  });

  it.skipIf(!takesFloat32Queries())('gets the same neighbours and distances from a Float32Array query as from an Array one', () => {
    const index = new HierarchicalNSW('cosine', DIMENSIONS);
    index.initIndex({ maxElements: 2_000, m: 16, efConstruction: 100, randomSeed: 100 });
    for (let label = 0; label < 2_000; label += 1) index.addPoint(vector(label), label);
    index.setEf(64);
    for (let seed = 5_000; seed < 5_020; seed += 1) {
      const typed = Float32Array.from(vector(seed));
      const fromArray = index.searchKnn(Array.from(typed), 30);
      const fromTyped = index.searchKnn(typed as unknown as number[], 30);
      // Typed answers where the build gives them (scripts/hnswlib-patches/typed-results.mjs): the same values.
      expect({ distances: Array.from(fromTyped.distances), neighbors: Array.from(fromTyped.neighbors) }).toEqual(fromArray);
    }
    // A Float32Array of the wrong length is refused as an Array of it is.
    expect(() => index.searchKnn(new Float32Array(DIMENSIONS - 1) as unknown as number[], 5)).toThrow(/expected 384, but got 383/);
  });

  it.skipIf(!takesTypedPoints())('builds the same graph from Float32Array points as from Arrays, and reads each point back the same either way', () => {
    type Index = InstanceType<typeof HierarchicalNSW>;
    const build = (typed: boolean): Index => {
      const index = new HierarchicalNSW('cosine', DIMENSIONS);
      index.initIndex({ maxElements: 1_500, m: 16, efConstruction: 100, randomSeed: 100 });
      // Typed points as views at an offset into one buffer, as the index thread adds a message's rows.
      const flat = new Float32Array(1_500 * DIMENSIONS);
      for (let label = 0; label < 1_500; label += 1) flat.set(vector(label), label * DIMENSIONS);
      for (let label = 0; label < 1_500; label += 1) {
        const row = flat.subarray(label * DIMENSIONS, (label + 1) * DIMENSIONS);
        index.addPoint(typed ? (row as unknown as number[]) : Array.from(row), label);
      }
      index.setEf(64);
      return index;
    };
    const byArrays = build(false);
    const byTyped = build(true);
    /** getPoint's typed form (the build's, not in hnswlib-node's types). */
    const readInto = (label: number, out: Float32Array): unknown => (byTyped as unknown as { getPoint(label: number, out: Float32Array): unknown }).getPoint(label, out);
    for (let seed = 9_000; seed < 9_020; seed += 1) expect(byTyped.searchKnn(vector(seed), 30)).toEqual(byArrays.searchKnn(vector(seed), 30));
    // Read back into views at offsets of one buffer, as the vector copy's fill does: the stored (unit) points, bit for bit.
    const out = new Float32Array(3 * DIMENSIONS);
    for (const label of [0, 777, 1_499]) {
      const view = out.subarray(DIMENSIONS, 2 * DIMENSIONS);
      expect(readInto(label, view)).toBe(view);
      expect(Array.from(view)).toEqual(byArrays.getPoint(label));
    }
    expect(out.subarray(0, DIMENSIONS).every((value) => value === 0) && out.subarray(2 * DIMENSIONS).every((value) => value === 0)).toBe(true);
    // A missing label and a wrong-length view are refused, not half-written.
    expect(() => readInto(1_500, out.subarray(0, DIMENSIONS))).toThrow(/Label not found/);
    expect(() => readInto(3, new Float32Array(DIMENSIONS - 1))).toThrow(/Float32Array of the point's length/);
  });

  it.skipIf(!takesFloat32Queries())('gets the same neighbours and distances, bit for bit, for a sparse query however it is scored', () => {
    // A Float32Array query with few nonzero components is scored by those columns alone where the
    // build does that (scripts/hnswlib-patches/sparse-queries.mjs), an Array one by hnswlib's kernel.
    const index = walkedGraph(40);
    const accepts = (label: number): boolean => label % 3 !== 0;
    for (let seed = 7_000; seed < 7_040; seed += 1) {
      // 1 to 120 nonzero columns (over a quarter of 384 goes back to the kernel), negative and positive.
      const dense = vector(seed);
      const nonzero = 1 + ((seed * 37) % 120);
      const query = Float32Array.from(dense, (value, column) => ((column * 7919 + seed) % DIMENSIONS < nonzero ? value : 0));
      for (const filter of [undefined, accepts]) {
        const byKernel = index.searchKnn(Array.from(query), 30, filter);
        const typed = index.searchKnn(query as unknown as number[], 30, filter);
        expect(Array.from(typed.neighbors)).toEqual(byKernel.neighbors);
        expect(Array.from(typed.distances)).toEqual(byKernel.distances);
      }
    }
  });

  it.skipIf(!takesRangeFilters())('walks the same with label ranges as with the function that accepts the same labels', () => {
    const index = walkedGraph(17);
    // From one label to all but a few, in runs of several sizes (the boundaries are where a binary search slips).
    const rangeSets = [
      [5, 1],
      [0, 3, 10, 3, 20, 3],
      Array.from({ length: 600 }, (_, index) => (index % 2 === 0 ? index * 5 : 2)),
      Array.from({ length: 60 }, (_, index) => (index % 2 === 0 ? index * 50 + 7 : 41)),
      [0, 1_500, 1_501, 1_499],
      [2_999, 1],
    ];
    for (const pairs of rangeSets) {
      const ranges = Int32Array.from(pairs);
      const accepts = (label: number): boolean => {
        for (let pair = 0; pair < ranges.length; pair += 2) if (label >= ranges[pair]! && label < ranges[pair]! + ranges[pair + 1]!) return true;
        return false;
      };
      for (let seed = 9_000; seed < 9_010; seed += 1) {
        const query = vector(seed);
        const byFunction = index.searchKnn(query, 20, accepts);
        const byRanges = index.searchKnn(query, 20, ranges as unknown as (label: number) => boolean);
        expect(byRanges).toEqual(byFunction);
        expect(byRanges.neighbors.every(accepts)).toBe(true);
      }
    }
  });

  it.skipIf(!hugePagesOnRequest())('keeps a graph of several MB on 2 MB pages', () => {
    // Room for 40,000 points of 16 dimensions: 204 bytes each (links, vector, label), ~8 MB in one
    // allocation. The first 12,000 (~2.4 MB) reach past its first 2 MB boundary: touching a page of
    // an advised range faults in the whole 2 MB page.
    const before = hugePagesKb();
    const index = new HierarchicalNSW('cosine', 16);
    index.initIndex({ maxElements: 40_000, m: 16, efConstruction: 16, randomSeed: 100 });
    for (let label = 0; label < 12_000; label += 1) index.addPoint(vector(label).slice(0, 16), label);
    expect(hugePagesKb() - before).toBeGreaterThanOrEqual(2048);
    expect(index.searchKnn(vector(3).slice(0, 16), 1).neighbors).toEqual([3]);
  });
});
