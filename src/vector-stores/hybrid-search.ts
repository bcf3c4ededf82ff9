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
  /** How many results come back (the caller uses no more): chunks that cannot reach them are not scored in full. */
  keep: number;
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
 * every proposed chunk gets both scores before they are fused (an ANN hit's BM25 comes from the
 * query's full lexical scoring; a lexical hit's cosine is read back from the index), so a chunk
 * found by one side only is not penalised for the other side's cut-off. Best first.
 */
export async function searchStore(data: StoreData, query: StoreQuery): Promise<ScoredChunk[]> {
  const semanticOn = query.vector !== null && query.weights.embedding > 0;
  const weights = { embedding: semanticOn ? query.weights.embedding : 0, text: query.weights.text };
  const lexical = query.weights.text > 0 ? data.lexicalScores(query.text) : null;
  const scored: Array<ScoredChunk & { label: number }> = [];
  const add = (label: number, semantic: number) => {
    const chunk = data.chunkAt(label);
    if (chunk === undefined || !query.acceptFile(chunk.fileId)) return;
    const lexicalScore = lexical?.get(label) ?? 0;
    scored.push({ ...chunk, label, text: '', score: fuseScores(semantic, lexicalScore, weights), semantic, lexical: lexicalScore });
  };

  // The semantic side: the ANN hits come with their cosine (their text is read for the kept ones only).
  let unitQuery: Float32Array | null = null;
  let noise = 0;
  let lowestCosine = -1;
  const seen = new Set<number>();
  if (semanticOn) {
    unitQuery = unit(query.vector!);
    noise = data.noiseLevel(unitQuery);
    const hits = await data.search(query.vector!, query.candidates, query.filtered ? query.acceptFile : undefined, { text: false });
    for (const hit of hits) {
      const label = data.labelOf(hit.fileId, hit.chunkIndex);
      if (label === undefined) continue;
      seen.add(label);
      add(label, calibrateCosine(hit.score, noise));
    }
    // A chunk the walk did not return is (up to ANN recall) no closer than its last hit.
    if (hits.length >= query.candidates) lowestCosine = hits[hits.length - 1]!.score;
  }

  // The lexical side: best BM25 first. Reading a chunk's vector back from hnswlib costs ~0.05–0.1 ms,
  // so a chunk whose score could not reach the `keep` best even at the walk's lowest cosine is not
  // read (nor any after it), and at most `keep` are read: the rest count at the noise level
  // (semantic 0), which on the benchmark changes no ranking in the top 10.
  if (lexical !== null) {
    const ceilingSemantic = lowestCosine < 0 ? 1 : calibrateCosine(lowestCosine, noise);
    let readBacks = 0;
    for (const label of lexical.top(query.candidates, (label) => accepts(data, query, label))) {
      if (seen.has(label)) continue;
      if (unitQuery === null) {
        add(label, 0);
        continue;
      }
      if (scored.length >= query.keep && fuseScores(ceilingSemantic, lexical.get(label), weights) <= kthScore(scored, query.keep)) break;
      add(label, readBacks++ < query.keep ? calibrateCosine(data.cosineAt(unitQuery, label), noise) : 0);
    }
  }

  scored.sort((left, right) => right.score - left.score || left.label - right.label);
  const results: ScoredChunk[] = [];
  // Decrypting a file's chunks for its text is the costliest step when they are not cached: only the kept ones.
  for (const { label: _label, ...hit } of scored.slice(0, query.keep)) results.push({ ...hit, text: await data.chunkText(hit.fileId, hit.chunkIndex) });
  return results;
}

function kthScore(scored: ReadonlyArray<{ score: number }>, k: number): number {
  return scored
    .map((entry) => entry.score)
    .sort((left, right) => right - left)[k - 1]!;
}

function accepts(data: StoreData, query: StoreQuery, label: number): boolean {
  const chunk = data.chunkAt(label);
  return chunk !== undefined && query.acceptFile(chunk.fileId);
}

function unit(vector: readonly number[]): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return Float32Array.from(vector, (value) => value / norm);
}
