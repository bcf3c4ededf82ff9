import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BEST_KEPT, BM25, Bm25Index, topLabels, type LexicalScores } from '../../../src/vector-stores/bm25-index.js';
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

/**
 * BM25 / ceiling with the index's arithmetic in the index's order (query terms in order of first
 * appearance, each posting's weight × f / (f + k1(1 − b) + k1·b/avg × length), then one division):
 * the optimised loops must give these exact bits, not merely close ones.
 */
function exactScores(documents: Map<number, string[]>, query: string[]): Map<number, number> {
  const { k1, b } = BM25;
  const average = [...documents.values()].reduce((sum, document) => sum + document.length, 0) / documents.size;
  const sums = new Map<number, number>();
  let ceiling = 0;
  for (const term of new Set(query)) {
    const df = [...documents.values()].filter((document) => document.includes(term)).length;
    const idf = Math.log(1 + (documents.size - df + 0.5) / (df + 0.5));
    ceiling += idf * (k1 + 1);
    const weight = idf * (k1 + 1);
    const normBase = k1 * (1 - b);
    const normPerLength = (k1 * b) / average;
    for (const [label, document] of [...documents].sort(([left], [right]) => left - right)) {
      const frequency = document.filter((word) => word === term).length;
      if (frequency === 0) continue;
      sums.set(label, (sums.get(label) ?? 0) + (weight * frequency) / (frequency + normBase + normPerLength * document.length));
    }
  }
  return new Map([...sums].map(([label, sum]) => [label, sum / ceiling]));
}

/** The k best by the scores read, best first, lower label first on ties, among those passing the filter. */
function referenceTop(scores: Map<number, number>, k: number, accept: (label: number) => boolean): number[] {
  return [...scores]
    .filter(([label]) => accept(label))
    .sort(([leftLabel, left], [rightLabel, right]) => right - left || leftLabel - rightLabel)
    .slice(0, k)
    .map(([label]) => label);
}

describe('Bm25Index scoring paths', () => {
  // Ties: documents 0, 2, 4 and 6 are alike (same length, same frequencies), as are 1 and 5.
  const corpus = ['chess mate', 'chess puzzle puzzle', 'chess mate', 'court warden', 'chess mate', 'chess puzzle puzzle', 'chess mate', 'river stone light', 'mate'];
  const everyone = () => true;
  const cases: Array<{ name: string; query: string[]; removed?: number[]; k: number; accept?: (label: number) => boolean; top: number[] }> = [
    { name: 'one common term, ties broken by the lower label', query: ['chess'], k: 3, top: [0, 2, 4] },
    { name: 'ties cut at k', query: ['mate'], k: 2, top: [8, 0] },
    { name: 'two terms: the later term adds to labels the first matched', query: ['chess', 'puzzle'], k: 3, top: [1, 5, 0] },
    { name: 'a repeated term counts once', query: ['puzzle', 'puzzle', 'chess'], k: 2, top: [1, 5] },
    { name: 'a term the store lacks comes first: the next term starts the sums', query: ['nowhere', 'mate'], k: 9, top: [8, 0, 2, 4, 6] },
    { name: 'only terms the store lacks', query: ['nowhere', 'nothing'], k: 5, top: [] },
    { name: 'an empty query', query: [], k: 5, top: [] },
    { name: 'k of 0', query: ['chess'], k: 0, top: [] },
    { name: 'k beyond the matches', query: ['warden', 'light'], k: 10, top: [3, 7] },
    { name: 'a filter rejecting one of the k best, more labels matching', query: ['chess'], k: 3, accept: (label) => label !== 2, top: [0, 4, 6] },
    { name: 'a filter rejecting one of the k best, no more matching', query: ['mate'], k: 5, accept: (label) => label !== 8, top: [0, 2, 4, 6] },
    { name: 'a filter rejecting everything', query: ['chess'], k: 3, accept: () => false, top: [] },
    { name: 'removed labels awaiting compaction are skipped', query: ['chess', 'mate'], removed: [0], k: 3, top: [2, 4, 6] },
    { name: 'removed labels, the first term matching none live', query: ['warden', 'puzzle'], removed: [3], k: 3, top: [1, 5] },
  ];

  it.each(cases)('$name', ({ query, removed = [], k, accept, top }) => {
    const index = new Bm25Index();
    const documents = new Map(corpus.map((text, label) => [label, text.split(' ')]));
    for (const [label, document] of documents) index.add(label, document);
    for (const label of removed) {
      index.remove(label);
      documents.delete(label);
    }
    const expected = exactScores(documents, query);
    // However many best labels the scoring picks ahead: the default, none, or fewer than k (top then scans them all).
    for (const bestKept of [BEST_KEPT, 0, 1, 2, 4]) {
      const scores = index.score(query, bestKept);
      expect([...scores.labels].sort((left, right) => left - right)).toEqual([...expected.keys()].sort((left, right) => left - right));
      for (const [label, score] of expected) expect(scores.get(label)).toBe(score);
      expect(scores.get(corpus.length + 5)).toBe(0);
      expect(scores.top(k, accept)).toEqual(top);
      expect(scores.top(k, accept)).toEqual(referenceTop(expected, k, accept ?? everyone));
    }
  });

  it('hands out the best labels one at a time, looking up only those asked for', () => {
    const index = new Bm25Index();
    corpus.forEach((text, label) => index.add(label, text.split(' ')));
    const scores = index.score(['chess', 'mate']);
    const asked: number[] = [];
    const accept = (label: number) => {
      asked.push(label);
      return label !== 0;
    };
    const ranked = scores.ranked(5, accept);
    const first = [ranked.next().value, ranked.next().value];
    expect(first).toEqual(scores.top(5, (label) => label !== 0).slice(0, 2));
    // Label 0 (the best) was rejected on the way: three lookups for two labels, none beyond.
    expect(asked).toEqual([0, ...first]);
    // Fewer pass than picked ahead: the rest come from scoring again with the filter.
    const few = index.score(['chess', 'mate'], 2);
    expect([...few.ranked(5, (label) => label !== 0)]).toEqual(scores.top(5, (label) => label !== 0));
  });

  it('gives the exact scores and best labels of a straightforward computation, on random stores, queries and filters', () => {
    const word = fc.constantFrom('court', 'chess', 'mate', 'puzzle', 'warden', 'river', 'stone', 'light', 'elsewhere');
    fc.assert(
      fc.property(
        fc.array(fc.array(word, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 40 }),
        fc.array(word, { maxLength: 4 }),
        fc.array(fc.nat(39)),
        fc.integer({ min: 0, max: 12 }),
        fc.nat(4),
        fc.nat(8),
        (texts, query, removed, k, modulus, bestKept) => {
          const index = new Bm25Index();
          const documents = new Map(texts.map((document, label) => [label, document]));
          for (const [label, document] of documents) index.add(label, document);
          for (const label of removed) {
            index.remove(label);
            documents.delete(label);
          }
          if (documents.size === 0) return;
          const scores = index.score(query, bestKept);
          const expected = exactScores(documents, query);
          for (const [label, score] of expected) expect(scores.get(label)).toBe(score);
          expect(scores.size).toBe(expected.size);
          const accept = (label: number) => modulus === 0 || label % (modulus + 1) !== 0;
          expect(scores.top(k, accept)).toEqual(referenceTop(expected, k, accept));
          expect(scores.top(k)).toEqual(referenceTop(expected, k, everyone));
        },
      ),
    );
  });
});

describe('Bm25Index images and later changes', () => {
  it('keeps scoring exactly after decoding, removing, compacting and adding again', () => {
    const texts = (label: number) => [`t${label % 11}`, `u${label % 5}`, `t${label % 11}`, `w${label}`].slice(0, 1 + (label % 4));
    const index = new Bm25Index();
    for (let label = 0; label < 300; label += 1) index.add(label, texts(label));
    for (let label = 0; label < 300; label += 4) index.remove(label);
    const decoded = Bm25Index.decode(index.encode());
    // Enough removals to compact the decoded postings, then labels new and old indexed again.
    for (let label = 1; label < 300; label += 2) decoded.remove(label);
    for (let label = 300; label < 320; label += 1) decoded.add(label, texts(label));
    decoded.add(1, ['t1', 'extra']);
    const documents = new Map<number, string[]>();
    for (let label = 0; label < 320; label += 1) if (label >= 300 || (label % 4 !== 0 && label % 2 === 0)) documents.set(label, texts(label));
    documents.set(1, ['t1', 'extra']);
    expect(decoded.labels()).toEqual([...documents.keys()].sort((left, right) => left - right));
    for (const query of [['t1'], ['u3', 't5'], ['extra', 'w310', 't2'], ['nowhere']]) {
      const scores = decoded.score(query);
      const expected = exactScores(documents, query);
      expect(scores.size).toBe(expected.size);
      for (const [label, score] of expected) expect(scores.get(label)).toBe(score);
      expect(scores.top(7)).toEqual(referenceTop(expected, 7, () => true));
    }
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

  it('keeps each query\'s scores apart, without one query leaking into the next', () => {
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
    // A second query meanwhile leaves the first one's scores as they were.
    const second = index.score(['court']);
    expect(asMap(first)).toEqual(firstScores);
    expect(asMap(second)).toEqual(fresh(['court']));
    for (const query of [['warden'], ['chess', 'stone'], ['light'], ['mate', 'court']]) {
      const scores = index.score(query);
      expect(asMap(scores)).toEqual(fresh(query));
      expect(scores.get(2)).toBe(fresh(query).get(2) ?? 0);
    }
  });

  it('answers a query as the index was when it was scored, whatever is added, removed or compacted after', () => {
    const texts = (label: number) => [`t${label % 7}`, `u${label % 3}`, `t${label % 7}`].slice(0, 1 + (label % 3));
    const index = new Bm25Index();
    const documents = new Map<number, string[]>();
    for (let label = 0; label < 60; label += 1) {
      index.add(label, texts(label));
      documents.set(label, texts(label));
    }
    index.remove(4);
    documents.delete(4);
    const queries = [['t1'], ['u2', 't3'], ['t4', 'u0', 't6']];
    const before = queries.map((query) => ({ scores: index.score(query, 3), expected: exactScores(documents, query) }));
    // Removals (the last ones compact the postings), a removed label indexed again, new labels, an old one again.
    for (let label = 0; label < 60; label += 3) index.remove(label);
    index.add(4, ['t1', 't1', 'u2']);
    for (let label = 60; label < 70; label += 1) index.add(label, texts(label));
    index.add(9, ['t4']);
    for (const { scores, expected } of before) {
      expect(scores.size).toBe(expected.size);
      expect(asMap(scores)).toEqual(new Map([...expected].sort(([left], [right]) => left - right)));
      expect(scores.get(4)).toBe(0);
      expect(scores.get(65)).toBe(0);
      // Past the 3 best picked at scoring time: scored again from the postings it had.
      expect(scores.top(8, (label) => label % 2 === 0)).toEqual(referenceTop(expected, 8, (label) => label % 2 === 0));
    }
  });

  it('scores stores whose labels span many windows, with gaps between them, exactly', () => {
    const random = (() => {
      let state = 7;
      return () => (state = (state * 48271) % 2147483647) / 2147483647;
    })();
    const vocabulary = ['court', 'chess', 'mate', 'puzzle', 'warden', 'river', 'stone', 'light'];
    const index = new Bm25Index();
    const documents = new Map<number, string[]>();
    for (let label = 0; label < 30_000; label += 1 + Math.floor(random() * random() * 40)) {
      const document = Array.from({ length: 1 + Math.floor(random() * 5) }, () => vocabulary[Math.floor(random() * random() * vocabulary.length)]!);
      index.add(label, document);
      documents.set(label, document);
    }
    for (const label of [...documents.keys()].filter((_, position) => position % 9 === 4)) {
      index.remove(label);
      documents.delete(label);
    }
    for (const query of [['light'], ['chess', 'river'], ['stone', 'court', 'warden', 'mate'], ['puzzle', 'light', 'elsewhere']]) {
      const scores = index.score(query);
      const expected = exactScores(documents, query);
      expect(scores.size).toBe(expected.size);
      for (const [label, score] of expected) expect(scores.get(label)).toBe(score);
      expect(scores.top(30)).toEqual(referenceTop(expected, 30, () => true));
      const sparse = (label: number) => label % 97 === 5;
      expect(scores.top(30, sparse)).toEqual(referenceTop(expected, 30, sparse));
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
