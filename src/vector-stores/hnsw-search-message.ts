export interface Neighbor {
  label: number;
  /** Cosine similarity in [-1, 1]. */
  score: number;
}

/**
 * The search message to the index thread and its answer, each one ArrayBuffer moved (transferred),
 * not cloned: a search is the hot call of the index thread (issue 16: eight in flight, every
 * cross-thread hop counts), and a lone buffer is the cheapest thing postMessage carries — no
 * object to serialise key by key, no per-element copy of a number[] query.
 *
 * Request: Int32 [id, index key, k, ranges length], then the query as Float32 (dimensions of
 * them), then the accepted label ranges as Int32 (start, count) pairs. Answer: Int32 [id, n],
 * then n Int32 labels, then n Float32 cosine distances (hnswlib computes them in float: nothing
 * is lost). hnsw-worker-source.ts reads and writes the other side of both layouts.
 */
const REQUEST_HEADER_INTS = 4;
const ANSWER_HEADER_INTS = 2;

export function searchRequest(id: number, key: number, query: ArrayLike<number>, k: number, ranges: Int32Array | undefined): ArrayBuffer {
  const rangeInts = ranges?.length ?? 0;
  const buffer = new ArrayBuffer((REQUEST_HEADER_INTS + query.length + rangeInts) * 4);
  const header = new Int32Array(buffer, 0, REQUEST_HEADER_INTS);
  header[0] = id;
  header[1] = key;
  header[2] = k;
  header[3] = rangeInts;
  new Float32Array(buffer, REQUEST_HEADER_INTS * 4, query.length).set(query);
  if (ranges !== undefined) new Int32Array(buffer, (REQUEST_HEADER_INTS + query.length) * 4, rangeInts).set(ranges);
  return buffer;
}

/** The id an answer belongs to. */
export function answerId(answer: ArrayBuffer): number {
  return new Int32Array(answer, 0, 1)[0]!;
}

/** Best first, scores as cosine similarity (1 − distance). */
export function neighborsOf(answer: ArrayBuffer): Neighbor[] {
  const count = new Int32Array(answer, 4, 1)[0]!;
  return neighborsFrom(new Int32Array(answer, ANSWER_HEADER_INTS * 4, count), new Float32Array(answer, (ANSWER_HEADER_INTS + count) * 4, count));
}

/** hnswlib's labels and cosine distances as neighbors (both lanes' answers: this one and hnsw-search-slots.ts). */
export function neighborsFrom(labels: Int32Array, distances: Float32Array): Neighbor[] {
  const neighbors = new Array<Neighbor>(labels.length);
  for (let index = 0; index < labels.length; index += 1) neighbors[index] = { label: labels[index]!, score: 1 - distances[index]! };
  return neighbors;
}
