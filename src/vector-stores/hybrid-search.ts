import { calibrateCosine, fuseScores, type FusionWeights } from './fusion.js';
import type { StoreData } from './store-data.js';

export interface StoreQuery {
  /** The query text (lexical side). */
  text: string;
  /** The query embedding; null when the semantic side is off (embedding weight 0). */
  vector: readonly number[] | null;
  weights: FusionWeights;
  /** How many chunks each side proposes. */
  candidates: number;
  /** Only chunks of accepted files count (completed, passing the filter). */
  acceptFile(fileId: string): boolean;
  /** Whether a filter narrows the files (the ANN walk then filters too; without one it filters after). */
  filtered: boolean;
}

export interface ScoredChunk {
  fileId: string;
  chunkIndex: number;
  text: string;
  /** The fused score in [0, 1]. */
  score: number;
  semantic: number;
  lexical: number;
}

/**
 * One store's hybrid search: the HNSW index and the BM25 index each propose their best chunks;
 * every proposed chunk gets both scores (its cosine read back from the index, its BM25 from the
 * query's full lexical scoring) before they are fused, so a chunk found by one side only is not
 * penalised for the other side's cut-off. Best first.
 */
export async function searchStore(data: StoreData, query: StoreQuery): Promise<ScoredChunk[]> {
  const semanticOn = query.vector !== null && query.weights.embedding > 0;
  const lexicalOn = query.weights.text > 0;
  const labels = new Set<number>();
  let unitQuery: Float32Array | null = null;
  if (semanticOn) {
    unitQuery = unit(query.vector!);
    for (const hit of await data.search(query.vector!, query.candidates, query.filtered ? query.acceptFile : undefined)) {
      const label = data.labelOf(hit.fileId, hit.chunkIndex);
      if (label !== undefined) labels.add(label);
    }
  }
  const lexical = lexicalOn ? data.lexicalScores(query.text) : new Map<number, number>();
  if (lexicalOn) for (const label of topLabels(lexical, query.candidates, (label) => accepts(data, query, label))) labels.add(label);

  const noise = unitQuery === null ? 0 : data.noiseLevel(unitQuery);
  const scored: ScoredChunk[] = [];
  for (const label of labels) {
    const chunk = data.chunkAt(label);
    if (chunk === undefined || !query.acceptFile(chunk.fileId)) continue;
    const semantic = unitQuery === null ? 0 : calibrateCosine(data.cosineAt(unitQuery, label), noise);
    const lexicalScore = lexical.get(label) ?? 0;
    const weights = { embedding: semanticOn ? query.weights.embedding : 0, text: query.weights.text };
    scored.push({ ...chunk, text: '', score: fuseScores(semantic, lexicalScore, weights), semantic, lexical: lexicalScore });
  }
  scored.sort((left, right) => right.score - left.score || left.fileId.localeCompare(right.fileId) || left.chunkIndex - right.chunkIndex);
  const best = scored.slice(0, query.candidates);
  for (const hit of best) hit.text = await data.chunkText(hit.fileId, hit.chunkIndex);
  return best;
}

function accepts(data: StoreData, query: StoreQuery, label: number): boolean {
  const chunk = data.chunkAt(label);
  return chunk !== undefined && query.acceptFile(chunk.fileId);
}

/** The k best-scored labels passing `accept`, without sorting every match (a common term matches thousands). */
export function topLabels(scores: ReadonlyMap<number, number>, k: number, accept: (label: number) => boolean): number[] {
  const best: Array<{ label: number; score: number }> = [];
  for (const [label, score] of scores) {
    if (best.length === k && score <= best[k - 1]!.score) continue;
    if (!accept(label)) continue;
    let position = best.length;
    while (position > 0 && best[position - 1]!.score < score) position -= 1;
    best.splice(position, 0, { label, score });
    if (best.length > k) best.pop();
  }
  return best.map((entry) => entry.label);
}

function unit(vector: readonly number[]): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return Float32Array.from(vector, (value) => value / norm);
}
