import { inferenceScope, responseHeaders, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { billingFields, callWithFallback, meterCall, resolveTarget, routesServing, type InferenceScope } from '../inference/index.js';
import type { IdGenerator } from '../util/ids.js';
import { rerankSchema } from './validation/embeddings-schema.js';
import { parseRequest } from './validation/parse.js';

/** Parse → pipeline (resolve, call with fallback over the routes that rerank, meter) → the spec's "Rerank result". */
export async function runRerank(scope: InferenceScope, ids: IdGenerator, raw: unknown): Promise<Record<string, unknown>> {
  const body = parseRequest(rerankSchema, raw);
  const documents = body.documents.map((document) => (typeof document === 'string' ? document : document.text));
  const target = resolveTarget(scope, body.model, ['reranker']);
  const request = { query: body.query, documents, ...(body.top_n === undefined ? {} : { top_n: body.top_n }), ...(body.max_chunks_per_doc === undefined ? {} : { max_chunks_per_doc: body.max_chunks_per_doc }) };
  const { result, candidate } = await callWithFallback(scope, routesServing(scope, target.candidates, 'rerank', 'rerank'), target.hints, ({ adapter, context }) => adapter.rerank!(request, context));
  const metering = meterCall(scope, candidate, { inputTokens: result.promptTokens, outputTokens: 0, cachedTokens: 0, images: 0, audioMinutes: 0 });
  const returnDocuments = body.return_documents ?? true;
  const ranked = body.top_n === undefined ? result.results : result.results.slice(0, body.top_n);
  return {
    id: ids.next('rerank-'),
    model: target.resolved.requested,
    results: ranked.map((entry) => ({
      index: entry.index,
      relevance_score: entry.relevance_score,
      ...(returnDocuments ? { document: { text: documents[entry.index] } } : {}),
    })),
    meta: { billed_units: { search_units: result.searchUnits } },
    usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens },
    ...billingFields(metering),
  };
}

/** POST /v1/rerank (spec "Rerank result"): parse → pipeline → writer. */
export async function handleRerank(call: RequestCall): Promise<void> {
  sendJson(call.response, 200, await runRerank(inferenceScope(call), call.app.ids, call.body), responseHeaders(call));
}
