import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';
import { DEFAULT_WEIGHTS, type FusionWeights } from './fusion.js';

/**
 * `ranking_options` as OpenAI's SDK declares it (vector store search: ranker, score_threshold;
 * the responses `file_search` tool adds hybrid_search), one schema for both surfaces.
 */
export const rankingOptionsSchema = z
  .object({
    ranker: z.enum(['auto', 'default-2024-11-15', 'none']).optional(),
    score_threshold: z.number().min(0).max(1).optional(),
    hybrid_search: z
      .object({
        embedding_weight: z.number().finite().min(0),
        text_weight: z.number().finite().min(0),
      })
      .strict()
      .refine((weights) => weights.embedding_weight + weights.text_weight > 0, { message: 'embedding_weight and text_weight cannot both be 0' })
      .optional(),
  })
  .strict();

export type RankingOptionsInput = z.infer<typeof rankingOptionsSchema>;

export interface RankingOptions {
  /** Whether the configured reranker (if any) runs: `none` switches it off. */
  rerank: boolean;
  scoreThreshold: number;
  weights: FusionWeights;
}

export function resolveRankingOptions(input: RankingOptionsInput | null | undefined): RankingOptions {
  return {
    rerank: input?.ranker !== 'none',
    scoreThreshold: input?.score_threshold ?? 0,
    weights: input?.hybrid_search === undefined ? DEFAULT_WEIGHTS : { embedding: input.hybrid_search.embedding_weight, text: input.hybrid_search.text_weight },
  };
}

/** Validates ranking options that arrived unchecked (the responses tool), naming the field on error. */
export function parseRankingOptions(value: unknown, field: string): RankingOptions {
  if (value === undefined || value === null) return resolveRankingOptions(undefined);
  const parsed = rankingOptionsSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = [field, ...issue.path.map(String)].join('.');
    throw new GatewayError('VALIDATION_4005', `${where}: ${issue.message}`, { field: where });
  }
  return resolveRankingOptions(parsed.data);
}
