import { describe, expect, it } from 'vitest';
import { Bm25Index, FIRST_PICK } from '../../../src/vector-stores/bm25-index.js';

/**
 * A query picks FIRST_PICK best labels when scored, fewer than the 60 a search may read
 * (hybrid-search.ts); a reader going past them gets the rest by a second scoring. Either way it
 * reads exactly the full order (every matching label by get, best first, lower label first on
 * ties), with the ranked score bits equal to get's.
 */
describe('the first pick of best labels and reading past it', () => {
  let seed = 5;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const vocabulary = Array.from({ length: 300 }, (_, word) => `v${word}`);
  const index = new Bm25Index();
  for (let label = 0; label < 12_000; label += 1) {
    index.add(label, Array.from({ length: 5 + Math.floor(random() * 30) }, () => vocabulary[Math.floor(random() * random() * vocabulary.length)]!));
  }
  const queries = Array.from({ length: 30 }, () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => vocabulary[Math.floor(random() * random() * 40)]!));

  const fullOrder = (query: string[], accept: (label: number) => boolean) => {
    const scores = index.score(query, 60);
    return [...scores.labels]
      .filter(accept)
      .map((label) => ({ label, score: scores.get(label) }))
      .sort((left, right) => right.score - left.score || left.label - right.label);
  };

  it('picks fewer than a search may read, and the reads past them continue the full order exactly', () => {
    expect(FIRST_PICK).toBeLessThan(60);
    for (const query of queries) {
      for (const accept of [() => true, (label: number) => label % 4 !== 1]) {
        const expected = fullOrder(query, accept).slice(0, 60);
        expect(expected.length).toBe(60);
        for (const stop of [1, FIRST_PICK - 1, FIRST_PICK, FIRST_PICK + 1, 45, 60]) {
          const scores = index.score(query, 60);
          const read: Array<{ label: number; score: number }> = [];
          for (const label of scores.ranked(60, accept)) {
            read.push({ label, score: scores.rankedScore });
            if (read.length === stop) break;
          }
          expect(read.map(({ label }) => label)).toEqual(expected.slice(0, stop).map(({ label }) => label));
          read.forEach(({ score }, at) => expect(Object.is(score, expected[at]!.score)).toBe(true));
        }
      }
    }
  });

  it('scores again only when a reader goes past the first pick', () => {
    const query = queries[0]!;
    const asked: number[] = [];
    const accept = (label: number) => {
      asked.push(label);
      return true;
    };
    const scores = index.score(query, 60);
    const ranked = scores.ranked(60, accept);
    for (let taken = 0; taken < FIRST_PICK; taken += 1) ranked.next();
    // Every label so far came from the first pick: one lookup each.
    expect(asked.length).toBe(FIRST_PICK);
    ranked.next();
    // The next one needed the query scored again for 60, the filter asked of the labels entering its best.
    expect(asked.length).toBeGreaterThan(FIRST_PICK + 1);
  });
});
