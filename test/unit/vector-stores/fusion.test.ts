import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calibrateCosine, DEFAULT_WEIGHTS, fuseScores } from '../../../src/vector-stores/fusion.js';
import { parseRankingOptions } from '../../../src/vector-stores/ranking-options.js';

const unitInterval = fc.double({ min: 0, max: 1, noNaN: true });

describe('score fusion', () => {
  it('puts a cosine at the noise level at 0, a perfect match at 1, and keeps the order of cosines', () => {
    expect(calibrateCosine(0.21, 0.21)).toBe(0);
    expect(calibrateCosine(0.1, 0.21)).toBe(0);
    expect(calibrateCosine(1, 0.21)).toBe(1);
    fc.assert(
      fc.property(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -0.5, max: 0.95, noNaN: true }), (a, b, noise) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(calibrateCosine(low, noise)).toBeLessThanOrEqual(calibrateCosine(high, noise));
      }),
    );
  });

  it('is a weighted mean in [0, 1], monotone in each side, and a side with weight 0 does not count', () => {
    fc.assert(
      fc.property(unitInterval, unitInterval, unitInterval, unitInterval, (semantic, lexical, embedding, text) => {
        const weights = { embedding, text: text + 0.001 };
        const score = fuseScores(semantic, lexical, weights);
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
        expect(fuseScores(Math.min(1, semantic + 0.1), lexical, weights)).toBeGreaterThanOrEqual(score);
        expect(fuseScores(semantic, Math.min(1, lexical + 0.1), weights)).toBeGreaterThanOrEqual(score);
      }),
    );
    expect(fuseScores(0.9, 0.2, { embedding: 0, text: 1 })).toBeCloseTo(0.2);
    expect(fuseScores(0.9, 0.2, { embedding: 1, text: 0 })).toBeCloseTo(0.9);
    expect(fuseScores(0.9, 0.2, DEFAULT_WEIGHTS)).toBeCloseTo(0.55);
  });

});

describe('ranking_options', () => {
  it('defaults to hybrid with equal weights, rerank when configured, no threshold', () => {
    expect(parseRankingOptions(undefined, 'ranking_options')).toEqual({ rerank: true, scoreThreshold: 0, weights: DEFAULT_WEIGHTS });
    expect(parseRankingOptions(null, 'ranking_options')).toEqual({ rerank: true, scoreThreshold: 0, weights: DEFAULT_WEIGHTS });
  });

  it('honours ranker none, the threshold and the hybrid weights', () => {
    expect(parseRankingOptions({ ranker: 'none', score_threshold: 0.3, hybrid_search: { embedding_weight: 2, text_weight: 1 } }, 'ranking_options')).toEqual({
      rerank: false,
      scoreThreshold: 0.3,
      weights: { embedding: 2, text: 1 },
    });
  });

  it('refuses invalid values by field', () => {
    expect(() => parseRankingOptions({ ranker: 'best' }, 'tools[0].ranking_options')).toThrow(/tools\[0\]\.ranking_options\.ranker/);
    expect(() => parseRankingOptions({ hybrid_search: { embedding_weight: 0, text_weight: 0 } }, 'ranking_options')).toThrow(/both be 0/);
    expect(() => parseRankingOptions({ hybrid_search: { embedding_weight: -1, text_weight: 1 } }, 'ranking_options')).toThrow(/embedding_weight/);
    expect(() => parseRankingOptions({ score_threshold: 1.5 }, 'ranking_options')).toThrow(/score_threshold/);
    expect(() => parseRankingOptions({ unknown: 1 }, 'ranking_options')).toThrow();
  });
});
