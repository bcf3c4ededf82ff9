import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../../src/vector-stores/bm25-index.js';

/**
 * A search reads each lexical candidate's score as it was ranked (rankedScore), not summed again
 * by get: the two must be the same bits, or fused scores (and the wire's scores) would move.
 */
describe('the score a label was ranked by', () => {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa', 'sigma'];
  let seed = 11;
  const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
  const index = new Bm25Index();
  for (let label = 0; label < 3000; label += 1) {
    index.add(label, Array.from({ length: 3 + Math.floor(random() * 30) }, () => words[Math.floor(random() * random() * words.length)]!));
  }

  const rankedWithScores = (query: string[], bestKept: number, k: number, accept?: (label: number) => boolean) => {
    const scores = index.score(query, bestKept);
    const ranked: Array<[number, number, number]> = [];
    for (const label of scores.ranked(k, accept)) ranked.push([label, scores.rankedScore, scores.get(label)]);
    return ranked;
  };

  it('equals get for the best picked at scoring time and for a filtered rescan, before and after removals', () => {
    for (const removed of [false, true]) {
      if (removed) for (let label = 0; label < 3000; label += 7) index.remove(label);
      for (const query of [['alpha'], ['omega', 'sigma'], ['beta', 'kappa', 'delta'], ['gamma', 'nothing']]) {
        const plain = rankedWithScores(query, 60, 60);
        // Only odd labels: most of the best 60 are rejected, so the query is scored again with the filter.
        const filtered = rankedWithScores(query, 60, 60, (label) => label % 2 === 1);
        expect(plain.length).toBe(60);
        expect(filtered.length).toBe(60);
        expect(filtered.every(([label]) => label % 2 === 1)).toBe(true);
        for (const [, ranked, summed] of [...plain, ...filtered]) {
          expect(ranked).toBeGreaterThan(0);
          expect(Object.is(ranked, summed)).toBe(true);
        }
        // Best first.
        for (let at = 1; at < filtered.length; at += 1) expect(filtered[at]![1]).toBeLessThanOrEqual(filtered[at - 1]![1]);
      }
    }
  });

  it('the best are those of a full scoring (every matching label by get, best first, lower label first on ties), with skewed terms over many windows', () => {
    // Word i of 400 drawn with probability falling fast with i: common words (long postings, low weight) beside rare ones.
    const vocabulary = Array.from({ length: 400 }, (_, word) => `v${word}`);
    const large = new Bm25Index();
    for (let label = 0; label < 20_000; label += 1) {
      large.add(label, Array.from({ length: 5 + Math.floor(random() * 40) }, () => vocabulary[Math.floor(random() * random() * vocabulary.length)]!));
    }
    for (let label = 5; label < 20_000; label += 97) large.remove(label); // some removed, awaiting compaction
    const queries = Array.from({ length: 60 }, () => Array.from({ length: 1 + Math.floor(random() * 4) }, () => vocabulary[Math.floor(random() * random() * vocabulary.length)]!));
    for (const query of queries) {
      for (const [k, accept] of [
        [60, undefined],
        [60, (label: number) => label % 3 === 0],
        [10, (label: number) => label % 5 !== 0],
      ] as const) {
        const scores = large.score(query, 60);
        const expected = [...scores.labels]
          .filter((label) => accept === undefined || accept(label))
          .map((label) => ({ label, score: scores.get(label) }))
          .sort((left, right) => right.score - left.score || left.label - right.label)
          .slice(0, k);
        const got: Array<{ label: number; score: number }> = [];
        for (const label of scores.ranked(k, accept)) got.push({ label, score: scores.rankedScore });
        expect(got.map(({ label }) => label)).toEqual(expected.map(({ label }) => label));
        got.forEach(({ score }, at) => expect(Object.is(score, expected[at]!.score)).toBe(true));
      }
    }
  });
});
