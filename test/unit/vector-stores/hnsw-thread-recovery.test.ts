import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endIndexThread } from '../../../src/vector-stores/hnsw-index.js';
import { keySealer } from '../../../src/vector-stores/sealer.js';
import { StoreData } from '../../../src/vector-stores/store-data.js';

const DIMENSIONS = 16;
const sealer = keySealer(randomBytes(32));

function vector(seed: number): number[] {
  let state = seed * 2654435761 + 7;
  return Array.from({ length: DIMENSIONS }, () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  });
}

function file(prefix: string, firstSeed: number, count: number) {
  const chunks = Array.from({ length: count }, (_, index) => ({ text: `${prefix} chunk ${index}`, tokens: 3 }));
  return { chunks, vectors: chunks.map((_, index) => vector(firstSeed + index)) };
}

const top = async (data: StoreData, seed: number) => (await data.search(vector(seed), 5)).map((hit) => `${hit.fileId}#${hit.chunkIndex}:${hit.score.toFixed(5)}`);

/** The index thread dies (an OOM, an hnswlib failure): later calls start a new one and the stores' indexes come back. */
describe('index thread recovery', () => {
  let folders: string[];
  beforeEach(async () => {
    folders = [await mkdtemp(path.join(tmpdir(), 'igw-hnsw-recovery-')), await mkdtemp(path.join(tmpdir(), 'igw-hnsw-recovery-'))];
  });
  afterEach(async () => {
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  it('reopens every store on a new thread with the same answers, snapshot gaps and removals included', async () => {
    const first = await StoreData.open('store-1', folders[0]!, sealer, { snapshotDelayMs: 3_600_000 });
    const second = await StoreData.open('store-2', folders[1]!, sealer, { snapshotDelayMs: 3_600_000 });
    for (const [index, data] of [first, second].entries()) {
      const a = file('alpha', 100 * index, 40);
      const b = file('beta', 100 * index + 40, 30);
      await data.commitFile('file-a', a.chunks, a.vectors);
      await data.commitFile('file-b', b.chunks, b.vectors);
      await data.snapshot();
    }
    // After the snapshot: a file the snapshot lacks, and a removal the snapshot still holds.
    const c = file('gamma', 500, 20);
    await first.commitFile('file-c', c.chunks, c.vectors);
    await first.removeFile('file-a');
    const seeds = [3, 45, 510, 140, 170];
    const before = await Promise.all(seeds.map((seed) => top(first, seed)));
    const beforeSecond = await Promise.all(seeds.map((seed) => top(second, seed)));
    expect(before.flat().some((hit) => hit.startsWith('file-c#'))).toBe(true);
    expect(before.flat().some((hit) => hit.startsWith('file-a#'))).toBe(false);

    await endIndexThread();

    expect(await Promise.all(seeds.map((seed) => top(first, seed)))).toEqual(before);
    expect(await Promise.all(seeds.map((seed) => top(second, seed)))).toEqual(beforeSecond);
    // Changes go on: a commit after the recovery is found, and the next snapshot writes.
    const d = file('delta', 700, 5);
    await second.commitFile('file-d', d.chunks, d.vectors);
    expect((await second.search(vector(702), 1))[0]).toMatchObject({ fileId: 'file-d', chunkIndex: 2 });
    await first.close();
    await second.close();
  });

  it('keeps a commit whose points the dying thread took, and answers the searches it owed', async () => {
    const data = await StoreData.open('store-1', folders[0]!, sealer, { snapshotDelayMs: 3_600_000 });
    const a = file('alpha', 1, 30);
    await data.commitFile('file-a', a.chunks, a.vectors);
    await data.snapshot();
    const b = file('beta', 31, 30);
    // The add and the searches are on their way to the thread when it ends.
    const committing = data.commitFile('file-b', b.chunks, b.vectors);
    const searching = Promise.all([data.search(vector(5), 3), data.search(vector(20), 3)]);
    const ending = endIndexThread();
    await committing;
    const [nearFive, nearTwenty] = await searching;
    await ending;
    expect(nearFive![0]).toMatchObject({ fileId: 'file-a', chunkIndex: 4 });
    expect(nearTwenty![0]).toMatchObject({ fileId: 'file-a', chunkIndex: 19 });
    expect((await data.search(vector(50), 1))[0]).toMatchObject({ fileId: 'file-b', chunkIndex: 19 });
    await data.close();
  });
});
