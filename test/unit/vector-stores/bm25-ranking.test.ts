import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../../../src/vector-stores/bm25-index.js';

/** Documents over a skewed vocabulary: a few words in most documents, many in few (as at 100k chunks). */
const word = fc.integer({ min: 0, max: 39 }).chain((rank) => fc.constant(`w${Math.floor((rank * rank) / 40)}`));
const documents = fc.array(fc.array(word, { minLength: 1, maxLength: 14 }), { minLength: 1, maxLength: 120 });
const query = fc.array(word, { minLength: 1, maxLength: 5 });

/** Every top-k the pruned ranking gives must be the full scoring's, label for label, score for score. */
function expectSameRanking(index: Bm25Index, terms: string[], labelCount: number, k: number, accept: (label: number) => boolean): void {
  const full = index.score(terms);
  const pruned = index.rank(terms);
  try {
    const top = pruned.top(k, accept);
    expect(top).toEqual(full.top(k, accept));
    for (const label of top) expect(pruned.get(label)).toBe(full.get(label));
    for (let label = 0; label < labelCount; label += 1) expect(pruned.get(label)).toBe(full.get(label));
  } finally {
    full.release();
    pruned.release();
  }
}

describe('PrunedRanking (Bm25Index.rank)', () => {
  it('gives exactly the full scoring: the same k best labels in the same order, the same scores', () => {
    fc.assert(
      fc.property(documents, query, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 4 }), (texts, terms, k, modulus) => {
        const index = new Bm25Index();
        texts.forEach((text, label) => index.add(label, text));
        expectSameRanking(index, terms, texts.length, k, () => true);
        expectSameRanking(index, terms, texts.length, k, (label) => label % modulus === 0);
      }),
      { numRuns: 300 },
    );
  });

  it('stays exact after removals, re-added labels and a compaction, and after an encode/decode', () => {
    fc.assert(
      fc.property(documents, query, fc.array(fc.nat(), { maxLength: 30 }), fc.integer({ min: 1, max: 8 }), (texts, terms, removals, k) => {
        const index = new Bm25Index();
        texts.forEach((text, label) => index.add(label, text));
        for (const removal of removals) index.remove(removal % texts.length);
        expectSameRanking(index, terms, texts.length, k, () => true);
        index.add(0, texts[texts.length - 1]!); // a label re-added: its postings go last
        expectSameRanking(index, terms, texts.length, k, () => true);
        index.compact();
        expectSameRanking(index, terms, texts.length, k, () => true);
        const decoded = Bm25Index.decode(index.encode());
        expectSameRanking(decoded, terms, texts.length, k, () => true);
      }),
      { numRuns: 200 },
    );
  });

  it('reads fewer postings than a full scoring when a rare term decides the top', () => {
    const index = new Bm25Index();
    // "common" is in every chunk; "rare" in 5 of 5,000.
    for (let label = 0; label < 5000; label += 1) index.add(label, label % 1000 === 7 ? ['common', 'rare', 'rare'] : ['common', `filler${label % 50}`]);
    const ranking = index.rank(['rare', 'common']);
    const labels: number[] = [];
    const top = ranking.top(3, (label) => {
      labels.push(label);
      return true;
    });
    expect(top).toEqual([7, 1007, 2007]);
    // Only chunks matching "rare" were ever candidates: the 5,000 postings of "common" were looked up, not scanned.
    expect(new Set(labels).size).toBeLessThanOrEqual(5);
  });
});
