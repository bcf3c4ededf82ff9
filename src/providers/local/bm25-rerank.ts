import { countTokens } from '../../tokens/tokenizer.js';
import type { RerankRequest, RerankResult } from '../types.js';
import { wordTokens } from './word-tokens.js';

/**
 * `local-rerank` (DESIGN §3): Okapi BM25 of the query against each document, IDF taken over
 * the documents of this request (there is no wider corpus), then mapped into [0,1] so it has
 * the shape of a reranker's relevance score. Lexical only: no synonyms, no semantics.
 */

const K1 = 1.2;
const B = 0.75;
/** Cohere-style billing: one search unit covers a query over up to 100 documents. */
const DOCUMENTS_PER_SEARCH_UNIT = 100;

export function bm25Rerank(request: RerankRequest): RerankResult {
  const queryTerms = [...new Set(wordTokens(request.query))];
  const documents = request.documents.map((document) => termCounts(wordTokens(document)));
  const lengths = documents.map((counts) => [...counts.values()].reduce((sum, count) => sum + count, 0));
  const averageLength = lengths.reduce((sum, length) => sum + length, 0) / Math.max(1, lengths.length);

  const idf = new Map<string, number>();
  for (const term of queryTerms) {
    const documentFrequency = documents.filter((counts) => counts.has(term)).length;
    // Lucene's variant (1 + …) keeps IDF positive even for a term in every document.
    idf.set(term, Math.log(1 + (documents.length - documentFrequency + 0.5) / (documentFrequency + 0.5)));
  }

  // Dividing by the query's term count makes "about one well-matched term per query term"
  // land near 0.5 whatever the query length; s/(s+k) is monotonic, so the order is BM25's.
  const scale = Math.max(1, queryTerms.length);
  const scored = documents.map((counts, index) => {
    const lengthNorm = averageLength === 0 ? 1 : 1 - B + (B * lengths[index]!) / averageLength;
    let score = 0;
    for (const term of queryTerms) {
      const frequency = counts.get(term) ?? 0;
      if (frequency > 0) score += idf.get(term)! * ((frequency * (K1 + 1)) / (frequency + K1 * lengthNorm));
    }
    return { index, relevance_score: score / (score + scale) };
  });
  // Array.prototype.sort is stable, and the index tiebreak makes that explicit.
  scored.sort((left, right) => right.relevance_score - left.relevance_score || left.index - right.index);

  const queryTokens = countTokens(request.query);
  return {
    results: request.top_n === undefined ? scored : scored.slice(0, Math.max(0, request.top_n)),
    // A cross-encoder reads the query once per document, so the query is counted per document.
    promptTokens: request.documents.reduce((sum, document) => sum + queryTokens + countTokens(document), 0),
    searchUnits: Math.max(1, Math.ceil(request.documents.length / DOCUMENTS_PER_SEARCH_UNIT)),
  };
}

function termCounts(terms: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}
