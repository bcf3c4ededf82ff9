import { GatewayError } from '../../errors/gateway-error.js';
import { responseHeaders, type RequestCall } from '../../http/request-call.js';
import { sendJson } from '../../http/respond.js';
import { resolveRankingOptions } from '../../vector-stores/ranking-options.js';
import { searchVectorStores } from '../../vector-stores/search.js';
import { parseSearchBody } from './search-body.js';

/** POST /v1/vector_stores/{id}/search (spec "Search body", "Search results"); `ranking_options` as in ranking-options.ts. */
export async function handleSearch(call: RequestCall): Promise<void> {
  const body = parseSearchBody(call.body);
  // OpenAI also takes several query strings; they are searched as one text.
  const query = typeof body.query === 'string' ? body.query : body.query.join('\n');
  if (query.trim() === '') throw new GatewayError('VALIDATION_4005', 'query must not be empty.', { field: 'query' });
  const outcome = await searchVectorStores(
    call.app,
    call.account.id,
    {
      vectorStoreIds: [call.params['vector_store_id']!],
      query,
      ...(body.max_num_results === undefined ? {} : { maxNumResults: body.max_num_results }),
      ...(body.filters === undefined ? {} : { filters: body.filters }),
      ranking: resolveRankingOptions(body.ranking_options),
      ...(body.rewrite_query === undefined ? {} : { rewriteQuery: body.rewrite_query }),
    },
    // The abort, not `call.signal`: reading that makes an AbortSignal, which the query embedding never needs.
    { abort: call.abort, log: call.log },
  );
  sendJson(
    call.response,
    200,
    { object: 'vector_store.search_results', search_query: outcome.searchQuery, data: outcome.results, has_more: false, next_page: null },
    responseHeaders(call),
  );
}
