import type { AppContext } from '../app/context.js';
import { callForAccount, type AccountCallOptions } from './account-call.js';

/**
 * The optional rerank stage of a store search (`vector_stores.reranker`): the configured reranker
 * model reads the query and each candidate chunk, routed and billed to the searching account
 * like POST /v1/rerank. Returns each text's relevance in [0, 1], in the order of `texts`
 * (a text the provider left out scores 0).
 */
export async function rerankTexts(app: AppContext, accountId: string, modelId: string, query: string, texts: readonly string[], options: AccountCallOptions): Promise<number[]> {
  if (texts.length === 0) return [];
  const result = await callForAccount(
    app,
    accountId,
    modelId,
    {
      type: 'reranker',
      order: 'priority',
      serves: (adapter) => typeof adapter.rerank === 'function',
      run: (adapter, context) => adapter.rerank!({ query, documents: [...texts] }, context),
      tokens: (reranked) => reranked.promptTokens,
    },
    options,
  );
  const scores = texts.map(() => 0);
  for (const entry of result.results) {
    if (Number.isInteger(entry.index) && entry.index >= 0 && entry.index < texts.length && Number.isFinite(entry.relevance_score)) {
      scores[entry.index] = Math.min(1, Math.max(0, entry.relevance_score));
    }
  }
  return scores;
}
