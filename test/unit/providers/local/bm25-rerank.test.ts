import { describe, expect, it } from 'vitest';
import { bm25Rerank } from '../../../../src/providers/local/bm25-rerank.js';
import { countTokens } from '../../../../src/tokens/tokenizer.js';

const DOCUMENTS = [
  'Bananas are yellow and rich in potassium.',
  'The capital of France is Paris, on the Seine.',
  'Paris hosted the Olympic Games in 1900, 1924 and 2024.',
  'Berlin is the capital of Germany.',
  'Rust is a systems programming language.',
];

describe('bm25Rerank', () => {
  it.each([
    { query: 'capital of France', best: 1 },
    { query: 'Olympic games Paris', best: 2 },
    { query: 'potassium in bananas', best: 0 },
    { query: 'what is the capital of germany', best: 3 },
    { query: 'programming language', best: 4 },
  ])('ranks document $best first for "$query"', ({ query, best }) => {
    const { results } = bm25Rerank({ query, documents: DOCUMENTS });
    expect(results[0]!.index).toBe(best);
    expect(results).toHaveLength(DOCUMENTS.length);
    expect(new Set(results.map((result) => result.index)).size).toBe(DOCUMENTS.length);
  });

  it('keeps scores in [0,1], sorted descending, with unmatched documents at 0', () => {
    const { results } = bm25Rerank({ query: 'Paris capital', documents: DOCUMENTS });
    for (const result of results) {
      expect(result.relevance_score).toBeGreaterThanOrEqual(0);
      expect(result.relevance_score).toBeLessThan(1);
    }
    for (let index = 1; index < results.length; index++) {
      expect(results[index - 1]!.relevance_score).toBeGreaterThanOrEqual(results[index]!.relevance_score);
    }
    expect(results.find((result) => result.index === 0)!.relevance_score).toBe(0);
  });

  it('breaks ties by original order', () => {
    const { results } = bm25Rerank({ query: 'nothing matches', documents: ['a', 'b', 'c', 'd'] });
    expect(results.map((result) => result.index)).toEqual([0, 1, 2, 3]);
    const same = bm25Rerank({ query: 'twin', documents: ['other', 'twin doc', 'twin doc'] }).results;
    expect(same.map((result) => result.index)).toEqual([1, 2, 0]);
  });

  it.each([
    { name: 'more occurrences in documents of equal length', documents: ['apple pie with cream', 'apple pie with apple', 'plain pie with cream'], order: [1, 0, 2] },
    { name: 'shorter documents with the same occurrences', documents: ['an apple among many other words in a long sentence', 'apple pie', 'apple with some words'], order: [1, 2, 0] },
  ])('favours $name', ({ documents, order }) => {
    expect(bm25Rerank({ query: 'apple', documents }).results.map((result) => result.index)).toEqual(order);
  });

  it.each([
    { topN: 2, expected: 2 },
    { topN: 10, expected: 5 },
    { topN: 0, expected: 0 },
  ])('top_n $topN returns $expected results', ({ topN, expected }) => {
    const ranked = bm25Rerank({ query: 'Paris', documents: DOCUMENTS });
    const limited = bm25Rerank({ query: 'Paris', documents: DOCUMENTS, top_n: topN });
    expect(limited.results).toEqual(ranked.results.slice(0, expected));
  });

  it('counts the query once per document plus the documents', () => {
    const result = bm25Rerank({ query: 'capital of France', documents: DOCUMENTS });
    const expected = DOCUMENTS.reduce((sum, document) => sum + countTokens('capital of France') + countTokens(document), 0);
    expect(result.promptTokens).toBe(expected);
  });

  it.each([
    { documents: 0, units: 1 },
    { documents: 1, units: 1 },
    { documents: 100, units: 1 },
    { documents: 101, units: 2 },
    { documents: 250, units: 3 },
  ])('bills $units search unit(s) for $documents documents', ({ documents, units }) => {
    const result = bm25Rerank({ query: 'q', documents: Array.from({ length: documents }, (_, index) => `doc ${index}`) });
    expect(result.searchUnits).toBe(units);
  });
});
