import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BM25, Bm25Index, topLabels, type LexicalScores } from '../../../src/vector-stores/bm25-index.js';
import { lexicalTerms } from '../../../src/vector-stores/lexical-terms.js';

/** Textbook Okapi BM25 (Lucene IDF), computed directly: the reference the index must agree with. */
function referenceBm25(documents: string[][], query: string[], index: number): number {
  const count = documents.length;
  const average = documents.reduce((sum, document) => sum + document.length, 0) / count;
  let score = 0;
  for (const term of new Set(query)) {
    const frequency = documents[index]!.filter((word) => word === term).length;
    if (frequency === 0) continue;
    const df = documents.filter((document) => document.includes(term)).length;
    const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
    score += (idf * frequency * (BM25.k1 + 1)) / (frequency + BM25.k1 * (1 - BM25.b + (BM25.b * documents[index]!.length) / average));
  }
  return score;
}

function ceiling(documents: string[][], query: string[]): number {
  let total = 0;
  for (const term of new Set(query)) {
    const df = documents.filter((document) => document.includes(term)).length;
    total += Math.log(1 + (documents.length - df + 0.5) / (df + 0.5)) * (BM25.k1 + 1);
  }
  return total;
}

/** The scores as a Map by ascending label, for comparisons. */
function asMap(scores: LexicalScores): Map<number, number> {
  return new Map([...scores.labels].sort((left, right) => left - right).map((label) => [label, scores.get(label)]));
}

const words = fc.constantFrom('court', 'chess', 'mate', 'puzzle', 'warden', 'river', 'stone', 'light');

describe('Bm25Index', () => {
  it('scores exactly BM25 divided by the query ceiling, for every matching document and no other', () => {
    fc.assert(
      fc.property(fc.array(fc.array(words, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 12 }), fc.array(words, { minLength: 1, maxLength: 4 }), (documents, query) => {
        const index = new Bm25Index();
        documents.forEach((document, label) => index.add(label, document));
        const scores = asMap(index.score(query));
        documents.forEach((document, label) => {
          const expected = referenceBm25(documents, query, label) / ceiling(documents, query);
          if (document.some((word) => query.includes(word))) expect(scores.get(label)).toBeCloseTo(expected, 10);
          else expect(scores.has(label)).toBe(false);
        });
        for (const score of scores.values()) {
          expect(score).toBeGreaterThan(0);
          expect(score).toBeLessThan(1);
        }
      }),
    );
  });

  it('forgets removed documents at once and keeps scoring the rest as if they had never been there', () => {
    const index = new Bm25Index();
    const documents = [['chess', 'mate'], ['chess', 'puzzle'], ['court', 'warden'], ['chess']];
    documents.forEach((document, label) => index.add(label, document));
    index.remove(1);
    index.remove(3);
    const fresh = new Bm25Index();
    fresh.add(0, documents[0]!);
    fresh.add(2, documents[2]!);
    expect(asMap(index.score(['chess', 'warden']))).toEqual(asMap(fresh.score(['chess', 'warden'])));
    expect(index.size).toBe(2);
    expect(index.labels()).toEqual([0, 2]);
  });

  it('survives many removals and re-adds (compaction keeps the live postings)', () => {
    const index = new Bm25Index();
    for (let label = 0; label < 400; label += 1) index.add(label, [`t${label % 7}`, 'everywhere']);
    for (let label = 0; label < 400; label += 2) index.remove(label);
    index.add(1, ['t1', 'everywhere', 'extra']);
    for (let label = 400; label < 420; label += 1) index.add(label, ['t3']);
    const scores = asMap(index.score(['t3']));
    const expected = [...Array(420).keys()].filter((label) => (label < 400 ? label % 2 === 1 && label % 7 === 3 : true));
    expect([...scores.keys()].sort((a, b) => a - b)).toEqual(expected);
    expect(index.score(['extra']).size).toBe(1);
  });

  it('takes the k best labels that pass the filter, best first, lower label first on ties', () => {
    const scores = new Map([[1, 0.2], [2, 0.9], [3, 0.5], [4, 0.7], [5, 0.1], [6, 0.95], [7, 0.7]]);
    const top = (k: number, accept: (label: number) => boolean) => topLabels([...scores.keys()], (label) => scores.get(label)!, k, accept);
    expect(top(3, () => true)).toEqual([6, 2, 4]);
    expect(top(4, () => true)).toEqual([6, 2, 4, 7]);
    expect(top(3, (label) => label % 2 === 1)).toEqual([7, 3, 1]);
    expect(top(3, () => false)).toEqual([]);
    const index = new Bm25Index();
    ['a b', 'a', 'b b b', 'c'].forEach((text, label) => index.add(label, text.split(' ')));
    expect(index.score(['b']).top(5)).toEqual([2, 0]);
    expect(index.score(['b']).get(3)).toBe(0);
  });

  it('round-trips through its binary image with identical scores, and refuses anything else', () => {
    const index = new Bm25Index();
    const texts = ['The justices asked about the warden', 'Chess puzzles: mate in two moves', 'A river of stone and light'];
    texts.forEach((text, label) => index.add(label * 3, lexicalTerms(text)));
    index.remove(3);
    const copy = Bm25Index.decode(index.encode());
    for (const query of ['justice warden', 'chess mate', 'light']) expect(asMap(copy.score(lexicalTerms(query)))).toEqual(asMap(index.score(lexicalTerms(query))));
    expect(copy.labels()).toEqual([0, 6]);
    const image = index.encode();
    expect(() => Bm25Index.decode(image.subarray(0, image.length - 3))).toThrow();
    expect(() => Bm25Index.decode(Buffer.from('not an index at all'))).toThrow();
  });
});

describe('lexicalTerms', () => {
  it('drops stop words and reduces inflections to one stem', () => {
    expect(lexicalTerms('What did the Supreme Court justices ask?')).toEqual(['suprem', 'court', 'justic', 'ask']);
    expect(lexicalTerms('justice')).toEqual(lexicalTerms('justices'));
    expect(lexicalTerms('puzzles puzzling')).toEqual(['puzzl', 'puzzl']);
  });

  it('keeps numbers and non-English words as they are', () => {
    expect(lexicalTerms('mateIn2 in 2009, Café naïve')).toEqual(['matein2', '2009', 'café', 'naïve']);
  });

  it('reuses its score arrays once released, without one query leaking into the next', () => {
    const index = new Bm25Index();
    const documents = [['chess', 'mate'], ['chess', 'puzzle'], ['court', 'warden'], ['river', 'stone', 'chess']];
    documents.forEach((document, label) => index.add(label, document));
    const fresh = (query: string[]) => {
      const reference = new Bm25Index();
      documents.forEach((document, label) => reference.add(label, document));
      return asMap(reference.score(query));
    };
    const first = index.score(['chess']);
    const firstScores = asMap(first);
    // Not released yet: a second query gets arrays of its own and the first keeps its scores.
    const second = index.score(['court']);
    expect(asMap(first)).toEqual(firstScores);
    expect(asMap(second)).toEqual(fresh(['court']));
    first.release();
    second.release();
    second.release(); // twice is harmless
    for (const query of [['warden'], ['chess', 'stone'], ['light'], ['mate', 'court']]) {
      const scores = index.score(query);
      expect(asMap(scores)).toEqual(fresh(query));
      expect(scores.get(2)).toBe(fresh(query).get(2) ?? 0);
      scores.release();
    }
  });

  it('encodes in parts whose concatenation is the whole image', () => {
    const index = new Bm25Index();
    for (let label = 0; label < 3000; label += 1) index.add(label, [`term${label % 700}`, `word${label}`, 'everywhere']);
    index.remove(5);
    const parts = [...index.encodeParts()];
    expect(parts.length).toBeGreaterThan(1);
    const image = Buffer.concat(parts);
    expect(image.equals(index.encode())).toBe(true);
    const decoded = Bm25Index.decode(image);
    expect(asMap(decoded.score(['term3', 'everywhere']))).toEqual(asMap(index.score(['term3', 'everywhere'])));
  });
});
