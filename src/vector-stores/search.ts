import type { AppContext } from '../app/context.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { CallLog } from '../http/request-call.js';
import { embedTexts } from './embedder.js';
import { matchesFilter, parseFilter, type AttributeFilter } from './filters.js';
import type { VectorStoreFileRecord, VectorStoreRecord } from './records.js';
import { rewriteQuery } from './rewrite-query.js';

export const DEFAULT_MAX_RESULTS = 10;
export const MAX_RESULTS = 50;

export interface SearchRequest {
  vectorStoreIds: string[];
  query: string;
  maxNumResults?: number;
  /** The wire `filters` object; validated here (invalid → 400). */
  filters?: unknown;
  scoreThreshold?: number;
  rewriteQuery?: boolean;
}

export interface SearchResult {
  file_id: string;
  filename: string;
  score: number;
  content: Array<{ type: 'text'; text: string }>;
  attributes: Record<string, unknown>;
}

export interface SearchOutcome {
  searchQuery: string;
  results: SearchResult[];
}

export interface SearchOptions {
  signal?: AbortSignal;
  /** The HTTP call's request-log line, which then carries the query embedding's cost. */
  log?: CallLog;
}

/**
 * Searches one or more of the account's stores (POST …/search, and the `file_search` tool of the
 * chat surfaces): the query is embedded once per embedding model, each store returns its best
 * chunks (exactly when a filter leaves few), and the merged results come best first.
 */
export async function searchVectorStores(app: AppContext, accountId: string, request: SearchRequest, options: SearchOptions = {}): Promise<SearchOutcome> {
  const query = request.query.trim();
  if (query === '') throw new GatewayError('VALIDATION_4005', 'query must not be empty.', { field: 'query' });
  const maxResults = request.maxNumResults ?? DEFAULT_MAX_RESULTS;
  if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > MAX_RESULTS) {
    throw new GatewayError('VALIDATION_4005', `max_num_results must be an integer from 1 to ${MAX_RESULTS}.`, { field: 'max_num_results' });
  }
  const threshold = request.scoreThreshold ?? 0;
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    throw new GatewayError('VALIDATION_4005', 'ranking_options.score_threshold must be a number from 0 to 1.', { field: 'ranking_options.score_threshold' });
  }
  const filter: AttributeFilter | undefined = request.filters === undefined || request.filters === null ? undefined : parseFilter(request.filters);
  const searchQuery = request.rewriteQuery === true ? rewriteQuery(query) : query;
  const service = app.vectorStores;
  const stores: VectorStoreRecord[] = [];
  for (const id of new Set(request.vectorStoreIds)) stores.push(await service.requireActiveStore(accountId, id));

  const results: SearchResult[] = [];
  const vectorsByModel = new Map<string, number[]>();
  for (const store of stores) {
    await service.touch(store);
    const data = await service.data(store.id);
    if (data.liveChunks === 0) continue;
    let vector = vectorsByModel.get(store.embedding_model);
    if (vector === undefined) {
      [vector] = await embedTexts(app, accountId, store.embedding_model, [searchQuery], { endpoint: '/v1/vector_stores/{vector_store_id}/search', ...options });
      vectorsByModel.set(store.embedding_model, vector!);
    }
    // By key, not a map of the whole store per search: a search costs the same at 100,000 files.
    const fileOf = (fileId: string): VectorStoreFileRecord | undefined => service.repository.file(store.id, fileId);
    const accept = (fileId: string) => {
      const file = fileOf(fileId);
      return file !== undefined && file.status === 'completed' && (filter === undefined || matchesFilter(filter, file.attributes));
    };
    const hits = await data.search(vector!, maxResults, filter === undefined ? undefined : accept);
    for (const hit of hits) {
      const file = fileOf(hit.fileId);
      if (file === undefined || !accept(hit.fileId)) continue;
      const score = Math.min(1, Math.max(0, hit.score));
      if (score < threshold) continue;
      results.push({ file_id: file.id, filename: file.filename, score, content: [{ type: 'text', text: hit.text }], attributes: { ...file.attributes } });
    }
  }
  results.sort((left, right) => right.score - left.score);
  return { searchQuery, results: results.slice(0, maxResults) };
}
