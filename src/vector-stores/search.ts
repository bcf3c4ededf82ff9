import type { AppContext } from '../app/context.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { CallLog } from '../http/request-call.js';
import type { CallerAbort } from '../util/caller-abort.js';
import { embedTexts } from './embedder.js';
import { acceptedFiles } from './accepted-files.js';
import { parseFilter, type AttributeFilter } from './filters.js';
import { searchStore, type ScoredChunk } from './hybrid-search.js';
import { resolveRankingOptions, type RankingOptions } from './ranking-options.js';
import type { VectorStoreFileRecord, VectorStoreRecord } from './records.js';
import { rerankTexts } from './rerank-stage.js';
import { rewriteQuery } from './rewrite-query.js';

export const DEFAULT_MAX_RESULTS = 10;
export const MAX_RESULTS = 50;
/** Each side of the hybrid search proposes at least this many chunks per store. */
const MIN_CANDIDATES = 30;
/** The rerank stage reads at most this many fused candidates. */
const RERANK_CANDIDATES = 50;

export interface SearchRequest {
  vectorStoreIds: string[];
  query: string;
  maxNumResults?: number;
  /** The wire `filters` object; validated here (invalid → 400). */
  filters?: unknown;
  /** Resolved `ranking_options` (defaults: hybrid with equal weights, rerank when configured, no threshold). */
  ranking?: RankingOptions;
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
  /** The HTTP call's abort (util/caller-abort.ts): handed down instead of `signal`, its AbortSignal is made only if a stage needs one. */
  abort?: CallerAbort;
  /** The HTTP call's request-log line, which then carries the query embedding's (and rerank's) cost. */
  log?: CallLog;
}

/** A hit and its score (the hit as searchStore made it, with its file record: no copy per candidate). */
interface Candidate {
  hit: ScoredChunk<VectorStoreFileRecord>;
  score: number;
}

/**
 * Searches one or more of the account's stores (POST …/search, the `file_search` tool of the
 * chat surfaces, `igw kb search`): hybrid retrieval — each store's HNSW and BM25 indexes propose
 * chunks, their calibrated scores are fused with the request's weights (fusion.ts) — then the
 * optional rerank stage (`vector_stores.reranker`), the score threshold, best first.
 */
export async function searchVectorStores(app: AppContext, accountId: string, request: SearchRequest, options: SearchOptions = {}): Promise<SearchOutcome> {
  const query = request.query.trim();
  if (query === '') throw new GatewayError('VALIDATION_4005', 'query must not be empty.', { field: 'query' });
  const maxResults = request.maxNumResults ?? DEFAULT_MAX_RESULTS;
  if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > MAX_RESULTS) {
    throw new GatewayError('VALIDATION_4005', `max_num_results must be an integer from 1 to ${MAX_RESULTS}.`, { field: 'max_num_results' });
  }
  const ranking = request.ranking ?? resolveRankingOptions(undefined);
  const threshold = ranking.scoreThreshold;
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    throw new GatewayError('VALIDATION_4005', 'ranking_options.score_threshold must be a number from 0 to 1.', { field: 'ranking_options.score_threshold' });
  }
  const filter: AttributeFilter | undefined = request.filters === undefined || request.filters === null ? undefined : parseFilter(request.filters);
  const searchQuery = request.rewriteQuery === true ? rewriteQuery(query) : query;
  const service = app.vectorStores;
  const stores: VectorStoreRecord[] = [];
  for (const id of new Set(request.vectorStoreIds)) stores.push(await service.requireActiveStore(accountId, id));

  const reranker = app.config.vector_stores.reranker;
  const rerank = reranker !== undefined && ranking.rerank;
  const candidates: Candidate[] = [];
  const vectorsByModel = new Map<string, number[]>();
  for (const store of stores) {
    await service.touch(store);
    const data = await service.data(store.id);
    if (data.liveChunks === 0) continue;
    let vector: number[] | null = null;
    if (ranking.weights.embedding > 0) {
      vector = vectorsByModel.get(store.embedding_model) ?? null;
      if (vector === null) {
        [vector] = (await embedTexts(app, accountId, store.embedding_model, [searchQuery], { endpoint: '/v1/vector_stores/{vector_store_id}/search', ...options })) as [number[]];
        vectorsByModel.set(store.embedding_model, vector);
      }
    }
    // By slot of the store's label table, each file's record resolved once (accepted-files.ts): a search costs the same at 100,000 files.
    const acceptedFile = acceptedFiles(service.repository, store.id, data.fileTable, filter);
    const keep = rerank ? RERANK_CANDIDATES : maxResults;
    const hits = await searchStore(data, {
      text: searchQuery,
      vector,
      weights: ranking.weights,
      candidates: Math.max(MIN_CANDIDATES, keep),
      keep,
      acceptedFile,
      filtered: filter !== undefined,
    });
    for (const hit of hits) candidates.push({ hit, score: hit.score });
  }
  candidates.sort((left, right) => right.score - left.score);

  if (rerank && candidates.length > 0) {
    const pool = candidates.splice(0, RERANK_CANDIDATES);
    const relevance = await rerankTexts(app, accountId, reranker!, searchQuery, pool.map((candidate) => candidate.hit.text), {
      endpoint: '/v1/vector_stores/{vector_store_id}/search (rerank)',
      ...options,
    });
    pool.forEach((candidate, index) => (candidate.score = relevance[index]!));
    // Stable: equal relevance keeps the fused order.
    pool.sort((left, right) => right.score - left.score);
    candidates.splice(0, candidates.length, ...pool);
  }

  const results: SearchResult[] = [];
  for (const candidate of candidates) {
    if (results.length === maxResults) break;
    if (candidate.score < threshold) continue;
    results.push({
      file_id: candidate.hit.file.id,
      filename: candidate.hit.file.filename,
      score: candidate.score,
      content: [{ type: 'text', text: candidate.hit.text }],
      attributes: { ...candidate.hit.file.attributes },
    });
  }
  return { searchQuery, results };
}
