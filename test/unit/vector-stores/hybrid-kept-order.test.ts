import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_WEIGHTS } from '../../../src/vector-stores/fusion.js';
import { searchStore } from '../../../src/vector-stores/hybrid-search.js';
import { keySealer } from '../../../src/vector-stores/sealer.js';
import { StoreData } from '../../../src/vector-stores/store-data.js';

/**
 * searchStore keeps only the `keep` best chunks as they are offered (hybrid-search.ts BestChunks):
 * its answer must be what sorting every proposed chunk (score descending, then label ascending)
 * and taking the first `keep` gave, whatever order the two sides propose them in.
 */
describe('the kept chunks are the best by score, then label', () => {
  let folder: string;
  let data: StoreData;
  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'igw-hybrid-kept-'));
    data = await StoreData.open('store-1', folder, keySealer(randomBytes(32)), { snapshotDelayMs: 3_600_000 });
  });
  afterEach(async () => {
    await data.close();
    await rm(folder, { recursive: true, force: true });
  });

  /** Chunk i: a group of equal chunks every 4 (same text, same vector), the groups ever further from the query. */
  const commit = async (count: number): Promise<void> => {
    const group = (index: number) => Math.floor(index / 4);
    const texts = Array.from({ length: count }, (_, index) => ['apple', ...Array.from({ length: group(index) + 1 }, () => 'pad')].join(' '));
    const vectors = texts.map((_, index) => [1, group(index) / 10, 0, 0]);
    await data.commitFile('file-a', texts.map((text) => ({ text, tokens: 5 })), vectors);
  };

  const search = async (keep: number, proposeReversed: boolean) => {
    const walk = data.nearest.bind(data);
    // The walk's neighbours, last label first: equal scores arrive in the opposite order of the answer's.
    if (proposeReversed) data.nearest = async (...args) => (await walk(...args)).reverse();
    const hits = await searchStore(data, { text: 'apple', vector: [1, 0, 0, 0], weights: DEFAULT_WEIGHTS, candidates: Math.max(30, keep), keep, acceptedFile: () => true, filtered: false });
    data.nearest = walk;
    return hits.map((hit) => ({ chunk: hit.chunkIndex, score: hit.score }));
  };

  it('equal scores come back lower chunk first, and keeping 10 gives the first 10 of keeping 50', async () => {
    await commit(60);
    for (const reversed of [false, true]) {
      const ten = await search(10, reversed);
      const fifty = await search(50, reversed);
      expect(ten).toEqual(fifty.slice(0, 10));
      const sorted = [...fifty].sort((left, right) => right.score - left.score || left.chunk - right.chunk);
      expect(fifty).toEqual(sorted);
      // Groups of four equal chunks: the first hits are chunks 0-3 in order, at one score.
      expect(ten.slice(0, 4).map((hit) => hit.chunk)).toEqual([0, 1, 2, 3]);
      expect(new Set(ten.slice(0, 4).map((hit) => hit.score)).size).toBe(1);
    }
  });

  it('keeping 1 gives the single best', async () => {
    await commit(20);
    expect((await search(1, true)).map((hit) => hit.chunk)).toEqual([0]);
  });
});
