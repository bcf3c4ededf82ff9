import type { RequestCall } from '../http/request-call.js';
import type { FileSearchResult, FileSearchToolDefinition } from '../translate/responses/types.js';
import { parseFilter } from '../vector-stores/filters.js';
import { parseRankingOptions } from '../vector-stores/ranking-options.js';
import { searchVectorStores } from '../vector-stores/search.js';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * file_search as igw runs it for the model (spec "POST /v1/responses", tools): a search over the
 * caller's own vector stores with the tool's vector_store_ids, max_num_results, filters and
 * ranking_options (ranker, score_threshold, hybrid_search weights), through the same search service as
 * POST /v1/vector_stores/{id}/search (the query embedding is billed there, on a line of its own).
 */
export interface FileSearch {
  /** Whether the file_search_call items carry their results (`include: ["file_search_call.results"]`). */
  includeResults: boolean;
  run(query: string): Promise<FileSearchResult[]>;
}

/**
 * Checks everything that can be checked before the model runs (vault access, the filters, that
 * every store exists and belongs to the caller), so a bad tool is a 4xx envelope rather than a
 * failed answer after output started.
 */
export async function createFileSearch(call: RequestCall, tool: FileSearchToolDefinition, toolIndex: number, include: readonly string[]): Promise<FileSearch> {
  const field = `tools[${toolIndex}]`;
  if (!call.principal.vaultAccess) {
    throw new GatewayError('AUTH_1016', 'The file_search tool reads vector stores, which need a key with vault access: create one with `igw keys create --vault`.', { field: `${field}.type` });
  }
  if (tool.filters != null) parseFilter(tool.filters, `${field}.filters`);
  const ranking = parseRankingOptions(tool.ranking_options, `${field}.ranking_options`);
  for (const id of new Set(tool.vector_store_ids)) await call.app.vectorStores.requireActiveStore(call.account.id, id);
  return {
    includeResults: include.includes('file_search_call.results'),
    async run(query: string): Promise<FileSearchResult[]> {
      // A model that calls the tool without a query gets "nothing found", not a failed answer.
      if (query.trim() === '') return [];
      const outcome = await searchVectorStores(
        call.app,
        call.account.id,
        {
          vectorStoreIds: tool.vector_store_ids,
          query,
          ...(tool.max_num_results === undefined ? {} : { maxNumResults: tool.max_num_results }),
          ...(tool.filters == null ? {} : { filters: tool.filters }),
          ranking,
        },
        { signal: call.signal },
      );
      return outcome.results.map((result) => ({
        file_id: result.file_id,
        filename: result.filename,
        score: result.score,
        text: result.content.map((part) => part.text).join('\n'),
        attributes: result.attributes as FileSearchResult['attributes'],
      }));
    },
  };
}
