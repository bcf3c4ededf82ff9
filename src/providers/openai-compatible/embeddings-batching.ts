import type { EmbeddingsResult } from '../types.js';
import { withRawVectors } from './embeddings-body.js';

/**
 * Embedding inputs go upstream in one call unless the provider caps the batch
 * (`max_embedding_batch` in the provider config; default 2048 for vendor `openai`, the
 * documented OpenAI limit, else 512). Batches are sent one after the other and their vectors
 * concatenated in input order; usage is summed.
 */
export const OPENAI_EMBEDDING_BATCH = 2048;
export const DEFAULT_EMBEDDING_BATCH = 512;

export function defaultEmbeddingBatch(vendor: string): number {
  return vendor === 'openai' ? OPENAI_EMBEDDING_BATCH : DEFAULT_EMBEDDING_BATCH;
}

/** Consecutive slices of at most `max` items (max ≥ 1), in order. */
export function splitBatches<T>(items: readonly T[], max: number): T[][] {
  const size = Math.max(1, Math.floor(max));
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}

/** Results of consecutive batches → one result: vectors concatenated in order, tokens summed. */
export function mergeEmbeddingResults(results: readonly EmbeddingsResult[]): EmbeddingsResult {
  if (results.length === 1) return results[0]!;
  const promptTokens = results.reduce((sum, result) => sum + result.promptTokens, 0);
  // Upstream vector texts stay texts when every batch kept them (embeddings-body.ts).
  if (results.length > 0 && results.every((result) => result.vectorsJson !== undefined)) return withRawVectors(results.flatMap((result) => result.vectorsJson!), promptTokens);
  return { vectors: results.flatMap((result) => result.vectors), promptTokens };
}
