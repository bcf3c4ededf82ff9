/**
 * How a store search turns its two signals into one score (DESIGN §5 "Vector store search"):
 * each is first made absolute — in [0, 1], 0 for a chunk unrelated to the query whatever the
 * embedding model — and then the two are averaged with the request's weights. Absolute rather
 * than rank-based (reciprocal-rank fusion) so that the score of a hit says how good it is, not
 * only where it stands, and `score_threshold` separates hits from noise across queries and stores.
 */

export interface FusionWeights {
  /** Weight of the semantic (embedding cosine) score. */
  embedding: number;
  /** Weight of the lexical (BM25) score. */
  text: number;
}

/**
 * Equal weights: with a weak embedder (local-embed) the calibrated cosine barely varies, so BM25
 * decides; with one that understands the query, the cosine carries paraphrases BM25 cannot see.
 */
export const DEFAULT_WEIGHTS: FusionWeights = { embedding: 0.5, text: 0.5 };

/**
 * Cosine rescaled from the query's noise level (the mean cosine of the query to the store's
 * chunks, where unrelated chunks sit with this model) up to 1: unrelated → 0, identical → 1.
 * Monotone in the cosine for a given query.
 */
export function calibrateCosine(cosine: number, noiseLevel: number): number {
  const floor = Math.min(Math.max(noiseLevel, 0), 0.99);
  return clamp01((cosine - floor) / (1 - floor));
}

/** The weighted mean of the two calibrated scores; a side that is switched off (weight 0) does not count. */
export function fuseScores(semantic: number, lexical: number, weights: FusionWeights): number {
  const total = weights.embedding + weights.text;
  if (total <= 0) return 0;
  return clamp01((weights.embedding * semantic + weights.text * lexical) / total);
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
