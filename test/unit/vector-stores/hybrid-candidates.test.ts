import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_WEIGHTS } from '../../../src/vector-stores/fusion.js';
import { searchStore } from '../../../src/vector-stores/hybrid-search.js';
import { keySealer } from '../../../src/vector-stores/sealer.js';
import { StoreData } from '../../../src/vector-stores/store-data.js';

const CHUNKS = 100;
/** Chunk i mentions the query word once among i filler words: BM25 ranks the chunks in index order. */
const texts = Array.from({ length: CHUNKS }, (_, index) => ['apple', ...Array.from({ length: index + 1 }, () => 'pad')].join(' '));
/** Every chunk points away from the query but one, given by `close`. */
const vectors = (close: number) => texts.map((_, index) => (index === close ? [1, 0, 0, 0] : [0, 1, (index % 7) / 10, (index % 5) / 10]));

/**
 * How far the lexical side reaches (hybrid-search.ts): it proposes twice the walk's candidates, and
 * each proposal gets its exact cosine from the store's vector copy. So a chunk the walk missed (HNSW
 * recall is below 1: on local-embed's vectors the walk at k 30 finds well under half of the exact 30)
 * still wins when it matches the query's words, if it is within 2 × candidates lexically.
 */
describe('the lexical side proposes twice the candidates of the walk', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'igw-hybrid-candidates-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const search = async (close: number): Promise<string[]> => {
    const data = await StoreData.open('store-1', folder, keySealer(randomBytes(32)), { snapshotDelayMs: 3_600_000 });
    try {
      await data.commitFile('file-a', texts.map((text) => ({ text, tokens: 5 })), vectors(close));
      // A walk that found nothing: what the lexical side proposes is all there is.
      data.nearest = async () => [];
      const hits = await searchStore(data, { text: 'apple', vector: [1, 0, 0, 0], weights: DEFAULT_WEIGHTS, candidates: 30, keep: 10, acceptedFile: () => true, filtered: false });
      return hits.map((hit) => `${hit.chunkIndex}`);
    } finally {
      await data.close();
    }
  };

  it.each([
    { close: 10, first: '10' },
    { close: 45, first: '45' },
    { close: 59, first: '59' },
  ])('the chunk at lexical rank $close, closest to the query vector, comes first', async ({ close, first }) => {
    expect((await search(close))[0]).toBe(first);
  });

  it('a chunk beyond 2 × candidates lexically is left to the walk', async () => {
    const hits = await search(80);
    expect(hits).not.toContain('80');
    expect(hits).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  });
});
