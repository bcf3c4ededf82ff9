import { describe, expect, it } from 'vitest';
import { ADD_SLICE_POINTS, HnswIndex } from '../../../src/vector-stores/hnsw-index.js';

/**
 * The index thread's order (hnsw-index.ts), whatever way a search travels to it: per index,
 * searches and changes behave as one queue in send order. A search sent after a change was sent
 * sees it; a change sent after a search waits for it (and never runs inside its searchKnn); an
 * acknowledged change is seen by every later search, also with other searches in flight.
 */
const DIMENSIONS = 16;

function vector(seed: number): number[] {
  let state = seed * 2654435761 + 3;
  return Array.from({ length: DIMENSIONS }, () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  });
}

const labelsFrom = (first: number, count: number) => Array.from({ length: count }, (_, offset) => first + offset);
const vectorsOf = (labels: readonly number[]) => labels.map((label) => vector(label));

/** Searches kept in flight on `index` until `stop` is called. */
function keepSearching(index: HnswIndex, inFlight: number): { stop(): Promise<void> } {
  let running = true;
  const loops = Array.from({ length: inFlight }, async (_, lane) => {
    for (let seed = lane; running; seed += inFlight) await index.search(vector(seed % 50), 3);
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

describe('the index thread keeps send order, per index', () => {
  it('a search right after an acknowledged add finds each added point, with other searches in flight', async () => {
    const index = HnswIndex.create(DIMENSIONS, 16);
    await index.add(vectorsOf(labelsFrom(0, 50)), labelsFrom(0, 50));
    const background = keepSearching(index, 8);
    try {
      // Batches of several slices each: the thread answers searches between slices, and the add's
      // acknowledgement must still come only after its last point.
      for (let first = 1_000; first < 1_000 + 4 * 3 * ADD_SLICE_POINTS; first += 3 * ADD_SLICE_POINTS) {
        const labels = labelsFrom(first, 3 * ADD_SLICE_POINTS);
        await index.add(vectorsOf(labels), labels);
        const last = labels.at(-1)!;
        const [hit] = await index.search(vector(last), 1);
        expect(hit).toMatchObject({ label: last });
        expect(hit!.score).toBeCloseTo(1, 5);
      }
    } finally {
      await background.stop();
      await index.close();
    }
  });

  it('a search sent while a deletion is on its way does not find the deleted point', async () => {
    const index = HnswIndex.create(DIMENSIONS, 256);
    await index.add(vectorsOf(labelsFrom(0, 200)), labelsFrom(0, 200));
    const background = keepSearching(index, 4);
    try {
      for (let label = 100; label < 140; label += 1) {
        const deleting = index.markDeleted([label]);
        const hits = await index.search(vector(label), 5);
        expect(hits.map((hit) => hit.label)).not.toContain(label);
        expect(await deleting).toBe(1);
      }
    } finally {
      await background.stop();
      await index.close();
    }
  });

  it('a change sent right after a search waits for it: the search still finds the point the change deletes', async () => {
    const index = HnswIndex.create(DIMENSIONS, 512);
    await index.add(vectorsOf(labelsFrom(0, 400)), labelsFrom(0, 400));
    // Another index's large add keeps the thread busy in its slices, so the search and the deletion
    // are both waiting when it next looks: it must take the search (sent first) before the deletion.
    const other = HnswIndex.create(DIMENSIONS, 16);
    try {
      for (let label = 0; label < 300; label += 1) {
        const busy = label % 10 === 0 ? other.add(vectorsOf(labelsFrom(10_000 + label * 100, 1_000)), labelsFrom(10_000 + label * 100, 1_000)) : undefined;
        // Both sent in one turn of the event loop: the search first, the deletion after it.
        const searching = index.search(vector(label), 1);
        const deleting = index.markDeleted([label]);
        const [hit] = await searching;
        expect(hit).toMatchObject({ label });
        expect(await deleting).toBe(1);
        // Acknowledged: every later search sees the deletion.
        expect((await index.search(vector(label), 5)).map((found) => found.label)).not.toContain(label);
        await busy;
      }
    } finally {
      await other.close();
      await index.close();
    }
  });
});
