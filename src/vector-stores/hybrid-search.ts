import { calibrateCosine, fuseScores, type FusionWeights } from './fusion.js';
import type { Neighbor } from './hnsw-index.js';
import type { StoreData } from './store-data.js';
import { nonzeroColumns } from './vector-copy.js';

export interface StoreQuery<F> {
  /** The query text (lexical side). */
  text: string;
  /** The query embedding; null when the semantic side is off (embedding weight 0). */
  vector: readonly number[] | null;
  weights: FusionWeights;
  /** How many chunks each side proposes. */
  candidates: number;
  /** How many results come back (the caller uses no more): chunks that cannot reach them are not scored in full. */
  keep: number;
  /**
   * The file of a slot of the store's `fileTable` when its chunks count (completed, passing the
   * filter), else undefined. Asked once per proposed chunk, synchronously after its slot is read.
   */
  acceptedFile(slot: number): F | undefined;
  /** Whether a filter narrows the files (the ANN walk then filters too; without one it filters after). */
  filtered: boolean;
}

export interface ScoredChunk<F> {
  fileId: string;
  /** What acceptedFile gave for it. */
  file: F;
  chunkIndex: number;
  text: string;
  /** The fused score in [0, 1]. */
  score: number;
  semantic: number;
  lexical: number;
}

/**
 * The lexical side proposes twice the walk's candidates. Its extra proposals cost a dot product
 * each on the vector copy (and most are cut by the bound below), where the walk's cost grows with
 * its ef: measured by bench/ann-fused.mjs at 100k chunks against a search with an exact semantic
 * side and 200 lexical candidates, 60 lexical candidates with the walk at ef 64 give back more of
 * that search's top 10 (synthetic store 0.962, man pages 0.934) than 30 with ef 128 did (0.842,
 * 0.897), for 40% less of the walk's CPU (hnsw-index.ts). local-embed's cosine follows shared
 * words and fragments, which BM25 ranks well; the walk still finds what shares no word with it.
 */
const LEXICAL_CANDIDATES_PER_CANDIDATE = 2;

/**
 * One store's hybrid search: the HNSW index and the BM25 index each propose their best chunks;
 * every proposed chunk gets both scores before they are fused (an ANN hit's BM25 comes from the
 * query's lexical scores as of the search's start; a lexical hit's cosine comes from the store's vector copy), so a
 * chunk found by one side only is not penalised for the other side's cut-off. Best first.
 *
 * Cost at 100,000 chunks is a fraction of a millisecond of CPU (DESIGN §4: a search costs the
 * same whatever the store's size, bar the postings of its terms): one ANN walk, one BM25 pass over
 * the query terms' postings (window by window, bm25-index.ts), a dot product per lexical
 * candidate, and the text of the kept chunks only.
 */
export async function searchStore<F>(data: StoreData, query: StoreQuery<F>): Promise<Array<ScoredChunk<F>>> {
  const semanticOn = query.vector !== null && query.weights.embedding > 0;
  const weights = { embedding: semanticOn ? query.weights.embedding : 0, text: query.weights.text };

  // The ANN walk runs on the index thread (hnsw-index.ts) while this thread scores BM25: the two
  // sides of one search use both cores, and eight searches in flight do not queue their walks here.
  const table = data.fileTable;
  const acceptSlot = (slot: number): boolean => query.acceptedFile(slot) !== undefined;
  /** The accepted file of a label's chunk; undefined when its file is gone or filtered out. */
  const fileOf = (label: number): F | undefined => {
    const slot = table.slotOf(label);
    return slot === -1 ? undefined : query.acceptedFile(slot);
  };
  const walk: Promise<Neighbor[]> = semanticOn ? data.nearest(query.vector!, query.candidates, query.filtered ? acceptSlot : undefined) : Promise.resolve([]);
  walk.catch(() => undefined); // awaited below; a failure must not count as unhandled meanwhile
  // The lexical scores as of now (the best labels picked; any other label's score summed on demand).
  const lexicalCandidates = LEXICAL_CANDIDATES_PER_CANDIDATE * query.candidates;
  const lexical = query.weights.text > 0 ? data.lexicalScores(query.text, lexicalCandidates) : null;
  const best = new BestChunks<F>(query.keep);
  let unitQuery: Float32Array | null = null;
  let columns: Int32Array | null = null;
  let noise = 0;
  if (semanticOn) {
    unitQuery = unit(query.vector!);
    columns = nonzeroColumns(unitQuery);
    // Without a promise when known (the store's sample is taken once): see heldText below.
    noise = data.knownNoiseLevel(unitQuery) ?? (await data.noiseLevel(unitQuery));
  }
  const neighbors = await walk;

  // The ANN hits come with their cosine.
  let lowestCosine = -1;
  const seen = new Set<number>();
  for (const neighbor of neighbors) {
    const label = neighbor.label;
    seen.add(label);
    const file = fileOf(label);
    if (file === undefined) continue;
    const semantic = calibrateCosine(neighbor.score, noise);
    const lexicalScore = lexical === null ? 0 : lexical.get(label);
    best.offer(label, fuseScores(semantic, lexicalScore, weights), semantic, lexicalScore, file);
  }
  // A chunk the walk did not return is (up to ANN recall) no closer than its last hit.
  if (neighbors.length >= query.candidates) lowestCosine = neighbors[neighbors.length - 1]!.score;

  // The lexical side: best BM25 first. A chunk whose score could not reach the `keep` best even
  // at the walk's lowest cosine is not scored (nor any after it).
  if (lexical !== null) {
    const ceilingSemantic = lowestCosine < 0 ? 1 : calibrateCosine(lowestCosine, noise);
    // Best first, each file looked up only when its label is reached (most are cut).
    const acceptLabel = (label: number): boolean => fileOf(label) !== undefined;
    for (const label of lexical.ranked(lexicalCandidates, acceptLabel)) {
      if (seen.has(label)) continue;
      // The score it was ranked by (LexicalScores.get would sum it again from the postings).
      const lexicalScore = lexical.rankedScore;
      if (unitQuery !== null && best.full && fuseScores(ceilingSemantic, lexicalScore, weights) <= best.lowest) break;
      const file = fileOf(label);
      if (file === undefined) continue;
      const semantic = unitQuery === null ? 0 : calibrateCosine(data.copiedCosine(unitQuery, label, columns) ?? (await data.cosineAt(unitQuery, label)), noise);
      best.offer(label, fuseScores(semantic, lexicalScore, weights), semantic, lexicalScore, file);
    }
  }

  // Only the kept chunks' text is looked up: from the store's memory (chunk-texts.ts) without a
  // promise per hit, and a file not held there by one positional read through its open segment
  // (chunk-reader.ts), those all at once: such reads overlap. The hits are built field by field: a
  // rest/spread copy and an async closure per hit cost ~50 µs a search.
  const kept = best.size;
  const texts: Array<string | undefined> = [];
  const fileIds: string[] = [];
  const chunkIndexes: number[] = [];
  for (let rank = 0; rank < kept; rank += 1) {
    const label = best.labels[rank]!;
    const slot = table.slotOf(label);
    fileIds.push(table.fileId(slot));
    chunkIndexes.push(label - table.start(slot));
    texts.push(data.heldText(fileIds[rank]!, chunkIndexes[rank]!));
  }
  if (texts.includes(undefined)) {
    await Promise.all(texts.map(async (text, rank) => (texts[rank] = text ?? (await data.chunkText(fileIds[rank]!, chunkIndexes[rank]!)))));
  }
  const hits: Array<ScoredChunk<F>> = [];
  for (let rank = 0; rank < kept; rank += 1) {
    hits.push({
      fileId: fileIds[rank]!,
      file: best.files[rank]!,
      chunkIndex: chunkIndexes[rank]!,
      score: best.scores[rank]!,
      semantic: best.semantics[rank]!,
      lexical: best.lexicals[rank]!,
      text: texts[rank]!,
    });
  }
  return hits;
}

/**
 * The `size` best chunks offered so far, best first: score descending, then label ascending (the
 * order of the answer, so equal scores come back the same way every time). Kept in parallel
 * arrays of at most `size` (50) entries, a chunk's fields written only while it is among them:
 * the search offers ~100 chunks and keeps 10, and an object per offered chunk plus a sort of all
 * of them was ~3% of the event loop's search time and most of its short-lived garbage (issue 16).
 */
class BestChunks<F> {
  readonly labels: number[] = [];
  readonly scores: number[] = [];
  readonly semantics: number[] = [];
  readonly lexicals: number[] = [];
  readonly files: F[] = [];

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.labels.length;
  }

  get full(): boolean {
    return this.labels.length >= this.capacity;
  }

  /** The lowest kept score (meaningful once full). */
  get lowest(): number {
    return this.scores[this.scores.length - 1] ?? 0;
  }

  offer(label: number, score: number, semantic: number, lexical: number, file: F): void {
    const { labels, scores, semantics, lexicals, files } = this;
    let position = labels.length;
    while (position > 0 && (scores[position - 1]! < score || (scores[position - 1] === score && labels[position - 1]! > label))) position -= 1;
    if (position >= this.capacity) return;
    // One place down for those after it (the last falls off when full), by hand: five splices cost more.
    let at = labels.length < this.capacity ? labels.length : this.capacity - 1;
    for (; at > position; at -= 1) {
      labels[at] = labels[at - 1]!;
      scores[at] = scores[at - 1]!;
      semantics[at] = semantics[at - 1]!;
      lexicals[at] = lexicals[at - 1]!;
      files[at] = files[at - 1]!;
    }
    labels[position] = label;
    scores[position] = score;
    semantics[position] = semantic;
    lexicals[position] = lexical;
    files[position] = file;
  }
}

/** Plain indexed loops: `Float32Array.from` with a map function costs ~80 µs per search here (iterator and a call per component). */
function unit(vector: readonly number[]): Float32Array {
  const length = vector.length;
  let norm = 0;
  for (let index = 0; index < length; index += 1) norm += vector[index]! * vector[index]!;
  norm = Math.sqrt(norm) || 1;
  const result = new Float32Array(length);
  for (let index = 0; index < length; index += 1) result[index] = vector[index]! / norm;
  return result;
}
