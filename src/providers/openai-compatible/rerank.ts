import { z } from 'zod';
import { GatewayError } from '../../errors/gateway-error.js';
import { countTokens } from '../../tokens/tokenizer.js';
import type { RerankRequest, RerankResult } from '../types.js';
import { unexpectedBody } from './normalize.js';

/**
 * Rerank through the common shape most rerank servers speak: `POST {base_url}/rerank` with
 * {model, query, documents, top_n, return_documents, max_chunks_per_doc} (Cohere v2, Jina,
 * Voyage, Together, vLLM all serve it under their versioned base URL). The answer lists
 * {index, relevance_score} under `results` (Cohere, Jina, Together, vLLM) or `data` (Voyage).
 *
 * Decisions:
 * - `return_documents` is always false upstream: igw adds the document text itself from the
 *   request, so a provider's echo (Together sends `document: {}`) is never trusted.
 * - Results are re-sorted by score (best first, ties by original index) whatever order the
 *   provider used; `top_n` is sent upstream and applied again by the endpoint.
 * - Scores are passed through unchanged. The spec calls them provider-dependent in [0,1]; a
 *   provider that returns raw logits (some vLLM cross-encoders) keeps its values, neither
 *   clamped nor rescaled, because clamping would merge distinct ranks into ties. Only a
 *   non-finite score or an index outside the documents list is an unreadable answer (3105).
 * - Usage: `usage.total_tokens` / `usage.prompt_tokens` (Together, Voyage, Jina) or
 *   `meta.billed_units.input_tokens` / `meta.tokens.input_tokens` (Cohere) when present; else
 *   counted with the gateway tokenizer as query + document per document (like local-rerank).
 *   Search units from `meta.billed_units.search_units`, else 1 per started 100 documents.
 */

const DOCUMENTS_PER_SEARCH_UNIT = 100;

/** The name of the result-count field: `top_n` (Cohere, Jina, Together, vLLM) or `top_k` (Voyage). */
export type RerankTopField = 'top_n' | 'top_k';

export function upstreamRerankBody(request: RerankRequest, upstreamModel: string, topField: RerankTopField = 'top_n'): Record<string, unknown> {
  const body: Record<string, unknown> = { model: upstreamModel, query: request.query, documents: request.documents };
  // Some servers refuse a top_n larger than the documents list; more than that means all of them.
  if (request.top_n !== undefined) body[topField] = Math.min(request.top_n, request.documents.length);
  body['return_documents'] = false;
  if (request.max_chunks_per_doc !== undefined) body['max_chunks_per_doc'] = request.max_chunks_per_doc;
  return body;
}

const entrySchema = z
  .object({
    index: z.number().int().nonnegative(),
    relevance_score: z.number(),
  })
  .passthrough();

const countSchema = z.number().finite().nonnegative().optional();

const rerankResponseSchema = z
  .object({
    results: z.array(entrySchema).optional(),
    data: z.array(entrySchema).optional(),
    usage: z.object({ total_tokens: countSchema, prompt_tokens: countSchema }).passthrough().nullable().optional(),
    meta: z
      .object({
        billed_units: z.object({ search_units: countSchema, input_tokens: countSchema }).passthrough().nullable().optional(),
        tokens: z.object({ input_tokens: countSchema }).passthrough().nullable().optional(),
      })
      .passthrough()
      .nullable()
      .optional(),
  })
  .passthrough();

export function normalizeRerank(body: unknown, request: RerankRequest, providerId: string): RerankResult {
  const parsed = rerankResponseSchema.safeParse(body);
  if (!parsed.success) throw unexpectedBody(providerId, 'rerank answer', parsed.error);
  const entries = parsed.data.results ?? parsed.data.data;
  if (entries === undefined) throw unexpectedBody(providerId, 'rerank answer (no results or data list)', body);
  const seen = new Set<number>();
  const results: RerankResult['results'] = [];
  for (const entry of entries) {
    if (entry.index >= request.documents.length || !Number.isFinite(entry.relevance_score)) {
      throw new GatewayError(
        'INFERENCE_3105',
        `Provider "${providerId}" returned a rerank result igw cannot use (index ${entry.index}, score ${String(entry.relevance_score)}).`,
        { provider: providerId },
        { cause: body },
      );
    }
    if (seen.has(entry.index)) continue;
    seen.add(entry.index);
    results.push({ index: entry.index, relevance_score: entry.relevance_score });
  }
  results.sort((left, right) => right.relevance_score - left.relevance_score || left.index - right.index);
  const { usage, meta } = parsed.data;
  const reported = usage?.total_tokens ?? usage?.prompt_tokens ?? meta?.billed_units?.input_tokens ?? meta?.tokens?.input_tokens;
  const promptTokens = reported ?? countedTokens(request);
  const searchUnits = meta?.billed_units?.search_units ?? Math.max(1, Math.ceil(request.documents.length / DOCUMENTS_PER_SEARCH_UNIT));
  return { results, promptTokens, searchUnits };
}

function countedTokens(request: RerankRequest): number {
  const queryTokens = countTokens(request.query);
  return request.documents.reduce((sum, document) => sum + queryTokens + countTokens(document), 0);
}
