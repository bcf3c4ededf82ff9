import { GatewayError } from '../errors/gateway-error.js';
import { responseHeaders, timeUpstream, type RequestCall } from '../http/request-call.js';
import { sendJson } from '../http/respond.js';
import { tryRoutes } from '../routing/fallback.js';
import { meterCall } from './shared/metering.js';
import { fallbackOptions, prepareInference, routesServing } from './shared/resolve.js';
import { rerankSchema } from './validation/embeddings-schema.js';
import { parseRequest } from './validation/parse.js';

/** POST /v1/rerank (spec "Rerank result"). */
export async function handleRerank(call: RequestCall): Promise<void> {
  const body = parseRequest(rerankSchema, call.body);
  const documents = body.documents.map((document) => (typeof document === 'string' ? document : document.text));
  const { resolved, candidates } = prepareInference(call, body.model, ['reranker']);
  const { result, candidate } = await tryRoutes(routesServing(call, candidates, 'rerank', 'rerank'), call.signal, (route) => {
    const adapter = call.app.providers.get(route.providerId);
    if (adapter.rerank === undefined) throw new GatewayError('INFERENCE_3104', `Provider "${route.providerId}" does not serve rerank.`);
    return timeUpstream(call, () =>
      adapter.rerank!(
        { query: body.query, documents, ...(body.top_n === undefined ? {} : { top_n: body.top_n }), ...(body.max_chunks_per_doc === undefined ? {} : { max_chunks_per_doc: body.max_chunks_per_doc }) },
        { signal: call.signal, upstreamModel: route.route.upstream_model, requestId: call.requestId },
      ),
    );
  }, fallbackOptions(call));
  const metering = meterCall(call, candidate, { inputTokens: result.promptTokens, outputTokens: 0, cachedTokens: 0, images: 0, audioMinutes: 0 });
  const returnDocuments = body.return_documents ?? true;
  const ranked = body.top_n === undefined ? result.results : result.results.slice(0, body.top_n);
  sendJson(
    call.response,
    200,
    {
      id: call.app.ids.next('rerank-'),
      model: resolved.requested,
      results: ranked.map((entry) => ({
        index: entry.index,
        relevance_score: entry.relevance_score,
        ...(returnDocuments ? { document: { text: documents[entry.index] } } : {}),
      })),
      meta: { billed_units: { search_units: result.searchUnits } },
      usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens },
      environment_impact: metering.environment_impact,
      billing_cost: metering.billing_cost,
    },
    responseHeaders(call),
  );
}
