import { callWithFallback, meterCall, resolveTarget, routesServing } from '../inference/index.js';
import { callForAccount, type InternalCallDeps, type InternalCallOptions } from './internal-call.js';

/**
 * The optional rerank stage of a store search (`vector_stores.reranker`): the configured reranker
 * model reads the query and each candidate chunk, routed and billed to the searching account
 * like POST /v1/rerank. Returns each text's relevance in [0, 1], in the order of `texts`
 * (a text the provider left out scores 0).
 */
export async function rerankTexts(deps: InternalCallDeps, accountId: string, modelId: string, query: string, texts: readonly string[], options: InternalCallOptions): Promise<number[]> {
  if (texts.length === 0) return [];
  const result = await callForAccount(deps, accountId, options, async (scope) => {
    const target = resolveTarget(scope, modelId, ['reranker']);
    const called = await callWithFallback(scope, routesServing(scope, target.candidates, 'rerank', 'rerank'), target.hints, ({ adapter, context }) =>
      adapter.rerank!({ query, documents: [...texts] }, context),
    );
    meterCall(scope, called.candidate, { inputTokens: called.result.promptTokens, outputTokens: 0, cachedTokens: 0, images: 0, audioMinutes: 0 });
    return called.result;
  });
  const scores = texts.map(() => 0);
  for (const entry of result.results) {
    if (Number.isInteger(entry.index) && entry.index >= 0 && entry.index < texts.length && Number.isFinite(entry.relevance_score)) {
      scores[entry.index] = Math.min(1, Math.max(0, entry.relevance_score));
    }
  }
  return scores;
}
