/**
 * An Okapi BM25 inverted index over integer labels (a store's chunk labels, the same as the HNSW
 * index's), kept compact: one Int32Array of (label, term frequency, document length) triples per
 * term, document lengths in a typed array by label too. Written here rather than with MiniSearch because at 100k
 * chunks MiniSearch's Map-per-posting layout took ~500 MB and its search (no top-k, a result
 * object per matching document) ~25 ms p99, and it hides the document frequencies an absolute
 * score needs; this layout takes tens of MB and answers in well under a millisecond.
 *
 * Removal is lazy: a removed label is marked absent at once (never matched again, its length
 * leaves the averages) and its postings are dropped by a compaction once they are a fair share.
 */

/** Okapi BM25 parameters (Lucene's defaults). */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

/** Compact when this share of the stored postings belongs to removed labels. */
const COMPACT_DEAD_SHARE = 0.25;
const MAGIC = 0x4c574749; // "IGWL" little-endian
const FORMAT_VERSION = 1;
/** Score arrays kept for reuse (about as many as searches in flight; 1.2 MB each at 100,000 chunks). */
const MAX_SCRATCH = 8;
/** encodeParts' part size. */
const PART_BYTES = 1024 * 1024;

export interface LexicalScore {
  label: number;
  /** BM25 divided by the query's ceiling (every term at saturation): in [0, 1), BM25's order. */
  score: number;
}

/**
 * How many best labels a query picks while its scores are fresh in the cache (see Bm25Index.score):
 * as many as a search asks for (search.ts: at most 50 candidates).
 */
export const BEST_KEPT = 50;

/**
 * The lexical scores of one query: every matching label's score, and the best of them. The index
 * leaves its sums undivided (dividing each by the query's ceiling was one more pass over every
 * matching label); a score is divided when read, which gives the same bits.
 */
export class LexicalScores {
  constructor(
    /** BM25 by label, not yet divided by the ceiling; 0 where no term matches. */
    private readonly byLabel: Float64Array,
    /** Matching labels, in no particular order. */
    readonly labels: Int32Array,
    /** The query's ceiling (see Bm25Index.score). */
    private readonly ceiling = 1,
    /** The best of the labels, best first (ties: lower label first): the `bestKept` best, or all when fewer match. */
    private readonly best: Int32Array,
    private readonly bestKept: number,
    private readonly onRelease: () => void = () => undefined,
  ) {}

  /**
   * Hands the arrays back to the index for the next query (it then clears only the labels this
   * one touched). Read nothing after: the next query overwrites them. Not calling it is safe,
   * the next query then allocates its own.
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    // A query matching a large share of the store clears it all at once (a memset beats scattered writes).
    if (this.labels.length * 8 > this.byLabel.length) this.byLabel.fill(0);
    else for (let index = 0; index < this.labels.length; index += 1) this.byLabel[this.labels[index]!] = 0;
    this.onRelease();
  }

  private released = false;

  get size(): number {
    return this.labels.length;
  }

  /** The label's score; 0 when it matches no query term. */
  get(label: number): number {
    return (this.byLabel[label] ?? 0) / this.ceiling;
  }

  /**
   * The k best-scored labels passing `accept`, best first (ties: lower label first). Taken from
   * the best labels picked at scoring time when they hold k that pass (the order is total, so
   * those are a prefix of every label's order): by the time a search asks, its ANN walk has let
   * the other searches in flight run, and a scan of thousands of scores then missed the cache at
   * nearly every one (~0.3 ms at 100,000 chunks). With no filter the k best all pass (bar chunks
   * of a file being removed), and `accept`, a file lookup, runs k times.
   */
  top(k: number, accept?: (label: number) => boolean): number[] {
    if (k <= 0) return [];
    const chosen: number[] = [];
    for (let rank = 0; rank < this.best.length && chosen.length < k; rank += 1) {
      const label = this.best[rank]!;
      if (accept === undefined || accept(label)) chosen.push(label);
    }
    if (chosen.length === k || this.best.length < this.bestKept) return chosen;
    return Array.from(bestOf(this.labels, this.byLabel, this.ceiling, k, accept ?? null));
  }
}

/** The k best of some distinct labels (small integers) by score, passing `accept`: best first, lower label first on ties. */
export function topLabels(labels: ArrayLike<number>, scoreOf: (label: number) => number, k: number, accept: (label: number) => boolean): number[] {
  const list = Int32Array.from(labels);
  const byLabel = new Float64Array(list.reduce((size, label) => Math.max(size, label + 1), 0));
  for (const label of list) byLabel[label] = scoreOf(label);
  return Array.from(bestOf(list, byLabel, 1, k, accept));
}

/**
 * The k best of `labels` by `sums[label] / divisor` (divided as LexicalScores.get does, so the
 * order is that of the scores read), passing `accept` (null: all pass), without sorting them all:
 * a common query term matches thousands of chunks, and one that cannot beat the k-th best so far
 * costs two loads and a comparison. One loop over typed arrays, with no call per label (it used
 * to read each score through a closure).
 */
function bestOf(labels: Int32Array, sums: Float64Array, divisor: number, k: number, accept: ((label: number) => boolean) | null): Int32Array {
  if (k <= 0) return new Int32Array(0);
  // Kept best first in fixed typed arrays (a candidate shifts the worse ones down: Array.splice
  // twice per insertion cost more than the whole scan at 100,000 chunks).
  const bestLabels = new Int32Array(k);
  const bestScores = new Float64Array(k);
  let kept = 0;
  let floor = -Infinity;
  let floorLabel = Infinity;
  for (let index = 0; index < labels.length; index += 1) {
    const label = labels[index]!;
    const score = sums[label]! / divisor;
    if (score < floor || (score === floor && label > floorLabel)) continue;
    if (accept !== null && !accept(label)) continue;
    let position = kept < k ? kept++ : k - 1;
    while (position > 0 && (bestScores[position - 1]! < score || (bestScores[position - 1]! === score && bestLabels[position - 1]! > label))) {
      bestLabels[position] = bestLabels[position - 1]!;
      bestScores[position] = bestScores[position - 1]!;
      position -= 1;
    }
    bestLabels[position] = label;
    bestScores[position] = score;
    if (kept === k) {
      floor = bestScores[k - 1]!;
      floorLabel = bestLabels[k - 1]!;
    }
  }
  return bestLabels.subarray(0, kept);
}

interface Postings {
  /**
   * label, frequency, length, label, frequency, length, … in ascending label order. The length
   * (the label's, as in Bm25Index.lengths) is repeated in each posting so the scoring loops read
   * it in order with the posting rather than from a per-label array at a scattered place: one
   * cache line fewer per posting, for 4 bytes more each (~12 MB for the 3 million postings of
   * bench/ingest.mjs's 100,000 chunks). The saved image keeps pairs.
   */
  triples: Int32Array;
  size: number;
}

/** Int32s per posting in memory. */
const STRIDE = 3;

export class Bm25Index {
  private readonly postings = new Map<string, Postings>();
  private lengths = new Uint32Array(0);
  private distinct = new Uint32Array(0);
  private present = new Uint8Array(0);
  private liveCount = 0;
  private totalLength = 0;
  private storedPostings = 0;
  private deadPostings = 0;
  /**
   * Dense score arrays and matched labels of queries done, reused while no LexicalScores holds
   * them: allocating and zeroing 12 bytes per label for every query cost more than the scoring
   * itself at 100,000 chunks (1.2 MB a query, and the garbage collections after it). Several,
   * because a search holds its set while it waits for its ANN walk on the index thread.
   */
  private readonly scratch: Array<{ byLabel: Float64Array; matched: Int32Array }> = [];

  /** Documents searchable now. */
  get size(): number {
    return this.liveCount;
  }

  has(label: number): boolean {
    return this.present[label] === 1;
  }

  /** Indexes a document's terms under a label not yet present (labels only grow, as the store assigns them). */
  add(label: number, terms: readonly string[]): void {
    if (this.has(label)) this.remove(label);
    this.ensureLabel(label);
    // A label seen before still has dead postings: they must go before it is live again.
    if (this.distinct[label]! > 0) this.compact();
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, frequency] of counts) this.append(term, label, frequency, terms.length);
    this.present[label] = 1;
    this.lengths[label] = terms.length;
    this.distinct[label] = counts.size;
    this.liveCount += 1;
    this.totalLength += terms.length;
    this.storedPostings += counts.size;
  }

  remove(label: number): void {
    if (!this.has(label)) return;
    this.present[label] = 0;
    this.liveCount -= 1;
    this.totalLength -= this.lengths[label]!;
    this.deadPostings += this.distinct[label]!;
    if (this.deadPostings > 0 && this.deadPostings >= this.storedPostings * COMPACT_DEAD_SHARE) this.compact();
  }

  /** Live labels (for reconciling with the store's committed files). */
  labels(): number[] {
    const labels: number[] = [];
    for (let label = 0; label < this.present.length; label += 1) if (this.present[label] === 1) labels.push(label);
    return labels;
  }

  /**
   * Every live document sharing a term with the query, scored. The ceiling counts each distinct
   * query term at its IDF × (k1 + 1), the most one term can add, so a score says how much of the
   * query a chunk matches and how strongly (terms the store lacks count too: they match nothing).
   * The `bestKept` best labels are picked at once (a search's top() then reads no other score).
   */
  score(queryTerms: readonly string[], bestKept = BEST_KEPT): LexicalScores {
    const labelCount = this.present.length;
    const unique = [...new Set(queryTerms)];
    if (unique.length === 0 || this.liveCount === 0) return new LexicalScores(new Float64Array(0), new Int32Array(0), 1, new Int32Array(0), bestKept);
    // Dense by label: a common term matches most chunks, and a Map of them costs ten times more.
    // The scratch arrays are all zero when handed back (release clears what it touched).
    let scratch = this.scratch.pop();
    // Arrays sized for fewer labels than the index now has are dropped (this query allocates).
    while (scratch !== undefined && scratch.byLabel.length < labelCount) scratch = this.scratch.pop();
    const byLabel = scratch?.byLabel ?? new Float64Array(labelCount);
    const matched = scratch?.matched ?? new Int32Array(labelCount);
    let matchedCount = 0;
    const averageLength = this.totalLength / this.liveCount || 1;
    let ceiling = 0;
    const { k1, b } = BM25;
    for (const term of unique) {
      const list = this.postings.get(term);
      const documentFrequency = list === undefined ? 0 : this.liveFrequency(list);
      const idf = Math.log(1 + (this.liveCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
      ceiling += idf * (k1 + 1);
      if (list === undefined) continue;
      // norm = k1 × (1 − b + b × length / average), split so the loop does one multiply-add.
      const weights: TermWeights = { weight: idf * (k1 + 1), normBase: k1 * (1 - b), normPerLength: (k1 * b) / averageLength };
      // Three loops for one sum (same expression, same order, so the same bits): with no removed
      // label awaiting compaction no posting needs its presence checked, and while nothing has
      // matched yet every posting is a new label (0 + x is x).
      if (this.deadPostings > 0) matchedCount = addLive(list, weights, this.present, byLabel, matched, matchedCount);
      else if (matchedCount === 0) matchedCount = addFirst(list, weights, byLabel, matched);
      else matchedCount = addMore(list, weights, byLabel, matched, matchedCount);
    }
    const labels = matched.subarray(0, matchedCount);
    // The best now, while the sums are in the cache (LexicalScores.top).
    const best = bestOf(labels, byLabel, ceiling, Math.min(bestKept, matchedCount), null);
    return new LexicalScores(byLabel, labels, ceiling, best, bestKept, () => {
      if (byLabel.length >= this.present.length && this.scratch.length < MAX_SCRATCH) this.scratch.push({ byLabel, matched });
    });
  }

  /** Live documents in a posting list: its size, less removed labels not yet compacted away. */
  private liveFrequency(list: Postings): number {
    if (this.deadPostings === 0) return list.size;
    let live = 0;
    for (let index = 0; index < list.size * STRIDE; index += STRIDE) if (this.present[list.triples[index]!] === 1) live += 1;
    return live;
  }

  private ensureLabel(label: number): void {
    if (label < this.present.length) return;
    const capacity = Math.max(1024, label + 1, this.present.length * 2);
    this.lengths = grow(this.lengths, capacity);
    this.distinct = grow(this.distinct, capacity);
    this.present = grow(this.present, capacity);
  }

  private append(term: string, label: number, frequency: number, length: number): void {
    let list = this.postings.get(term);
    if (list === undefined) {
      list = { triples: new Int32Array(2 * STRIDE), size: 0 };
      this.postings.set(term, list);
    } else if (list.size * STRIDE === list.triples.length) {
      const bigger = new Int32Array(list.triples.length * 2);
      bigger.set(list.triples);
      list.triples = bigger;
    }
    const at = list.size * STRIDE;
    list.triples[at] = label;
    list.triples[at + 1] = frequency;
    list.triples[at + 2] = length;
    list.size += 1;
  }

  /** Drops the postings of removed labels (and terms left with none). */
  compact(): void {
    for (const [term, list] of this.postings) {
      let kept = 0;
      const { triples } = list;
      for (let index = 0; index < list.size * STRIDE; index += STRIDE) {
        const label = triples[index]!;
        if (this.present[label] !== 1) continue;
        triples[kept * STRIDE] = label;
        triples[kept * STRIDE + 1] = triples[index + 1]!;
        triples[kept * STRIDE + 2] = triples[index + 2]!;
        kept += 1;
      }
      if (kept === 0) this.postings.delete(term);
      else if (kept * STRIDE * 2 < triples.length) list.triples = triples.slice(0, Math.max(2 * STRIDE, kept * STRIDE));
      list.size = kept;
    }
    for (let label = 0; label < this.present.length; label += 1) if (this.present[label] !== 1) this.distinct[label] = 0;
    this.storedPostings -= this.deadPostings;
    this.deadPostings = 0;
  }

  /** A self-contained binary image (compacted first): header, per-label arrays, then each term's postings. */
  encode(): Buffer {
    return Buffer.concat([...this.encodeParts()]);
  }

  /**
   * encode()'s bytes in parts of about a megabyte, so a caller can yield to the event loop between
   * them (an image of a 100,000-chunk store is tens of MB). The index must not change until the
   * last part is taken.
   */
  *encodeParts(): Generator<Buffer> {
    this.compact();
    const labelCount = this.present.length;
    const head = Buffer.alloc(4 * 6 + labelCount * (4 + 4 + 1));
    let offset = 0;
    for (const value of [MAGIC, FORMAT_VERSION, labelCount, this.liveCount, this.storedPostings, this.postings.size]) {
      head.writeUInt32LE(value, offset);
      offset += 4;
    }
    offset += copyInto(head, offset, this.lengths);
    offset += copyInto(head, offset, this.distinct);
    copyInto(head, offset, this.present);
    yield head;
    const encoder = new TextEncoder();
    let pending: Array<{ bytes: Uint8Array; list: Postings }> = [];
    let pendingBytes = 0;
    const flush = (): Buffer => {
      const part = Buffer.allocUnsafe(pendingBytes);
      let at = 0;
      for (const { bytes, list } of pending) {
        part.writeUInt32LE(bytes.length, at);
        part.set(bytes, at + 4);
        at += 4 + bytes.length;
        part.writeUInt32LE(list.size, at);
        at += 4;
        at += copyInto(part, at, pairsOf(list));
      }
      pending = [];
      pendingBytes = 0;
      return part;
    };
    for (const [term, list] of this.postings) {
      const bytes = encoder.encode(term);
      pending.push({ bytes, list });
      pendingBytes += 8 + bytes.length + list.size * 8;
      if (pendingBytes >= PART_BYTES) yield flush();
    }
    if (pending.length > 0) yield flush();
  }

  /** Reads an image written by encode; throws on anything else (the caller rebuilds from the chunks). */
  static decode(buffer: Buffer): Bm25Index {
    let offset = 0;
    const u32 = () => {
      const value = buffer.readUInt32LE(offset);
      offset += 4;
      return value;
    };
    if (u32() !== MAGIC || u32() !== FORMAT_VERSION) throw new Error('not a lexical index image');
    const index = new Bm25Index();
    const labelCount = u32();
    index.liveCount = u32();
    index.storedPostings = u32();
    const termCount = u32();
    index.lengths = new Uint32Array(readBytes(buffer, offset, labelCount * 4));
    offset += labelCount * 4;
    index.distinct = new Uint32Array(readBytes(buffer, offset, labelCount * 4));
    offset += labelCount * 4;
    index.present = new Uint8Array(readBytes(buffer, offset, labelCount));
    offset += labelCount;
    const decoder = new TextDecoder();
    const image = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    for (let count = 0; count < termCount; count += 1) {
      const termLength = u32();
      const term = decoder.decode(buffer.subarray(offset, offset + termLength));
      offset += termLength;
      const size = u32();
      index.postings.set(term, { triples: triplesAt(image, offset, size, index.lengths), size });
      offset += size * 8;
    }
    if (offset !== buffer.length) throw new Error('lexical index image has trailing bytes');
    let totalLength = 0;
    let live = 0;
    for (let label = 0; label < labelCount; label += 1) {
      if (index.present[label] !== 1) continue;
      live += 1;
      totalLength += index.lengths[label]!;
    }
    if (live !== index.liveCount) throw new Error('lexical index image is inconsistent');
    index.totalLength = totalLength;
    return index;
  }
}

/** One query term's BM25 constants: a posting adds weight × f / (f + normBase + normPerLength × length). */
interface TermWeights {
  weight: number;
  normBase: number;
  normPerLength: number;
}

/** Adds a term's postings to sums that are all still zero: every label is new. Returns the matched count. */
function addFirst(list: Postings, { weight, normBase, normPerLength }: TermWeights, byLabel: Float64Array, matched: Int32Array): number {
  const { triples, size } = list;
  for (let index = 0, count = 0; index < size * STRIDE; index += STRIDE, count += 1) {
    const label = triples[index]!;
    const frequency = triples[index + 1]!;
    matched[count] = label;
    byLabel[label] = (weight * frequency) / (frequency + normBase + normPerLength * triples[index + 2]!);
  }
  return size;
}

/** Adds a term's postings (all of live labels) to the sums, recording labels matched for the first time. */
function addMore(list: Postings, { weight, normBase, normPerLength }: TermWeights, byLabel: Float64Array, matched: Int32Array, matchedCount: number): number {
  const { triples, size } = list;
  let count = matchedCount;
  for (let index = 0; index < size * STRIDE; index += STRIDE) {
    const label = triples[index]!;
    const frequency = triples[index + 1]!;
    if (byLabel[label] === 0) matched[count++] = label;
    byLabel[label]! += (weight * frequency) / (frequency + normBase + normPerLength * triples[index + 2]!);
  }
  return count;
}

/** addMore for postings that may belong to removed labels (skipped). */
function addLive(list: Postings, { weight, normBase, normPerLength }: TermWeights, present: Uint8Array, byLabel: Float64Array, matched: Int32Array, matchedCount: number): number {
  const { triples, size } = list;
  let count = matchedCount;
  for (let index = 0; index < size * STRIDE; index += STRIDE) {
    const label = triples[index]!;
    if (present[label] !== 1) continue;
    const frequency = triples[index + 1]!;
    if (byLabel[label] === 0) matched[count++] = label;
    byLabel[label]! += (weight * frequency) / (frequency + normBase + normPerLength * triples[index + 2]!);
  }
  return count;
}

/** A posting list as the image keeps it: (label, frequency) pairs. */
function pairsOf(list: Postings): Int32Array {
  const pairs = new Int32Array(list.size * 2);
  for (let posting = 0; posting < list.size; posting += 1) {
    pairs[posting * 2] = list.triples[posting * STRIDE]!;
    pairs[posting * 2 + 1] = list.triples[posting * STRIDE + 1]!;
  }
  return pairs;
}

/**
 * The `size` (label, frequency) pairs of an image at offset, as triples with each label's length.
 * Read in place (little-endian, as written): an aligned copy of the pairs first was as many MB of
 * garbage as the image's postings when a store opened.
 */
function triplesAt(image: DataView, offset: number, size: number, lengths: Uint32Array): Int32Array {
  if (offset + size * 8 > image.byteLength) throw new Error('lexical index image is truncated');
  const triples = new Int32Array(Math.max(2, size) * STRIDE);
  for (let posting = 0; posting < size; posting += 1) {
    const label = image.getInt32(offset + posting * 8, true);
    triples[posting * STRIDE] = label;
    triples[posting * STRIDE + 1] = image.getInt32(offset + posting * 8 + 4, true);
    triples[posting * STRIDE + 2] = lengths[label] ?? 0;
  }
  return triples;
}

function grow<T extends Uint32Array | Uint8Array>(array: T, capacity: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(capacity);
  bigger.set(array);
  return bigger;
}

/** Copies a typed array's bytes into the buffer at offset (little-endian hosts, as Node's are). */
function copyInto(buffer: Buffer, offset: number, array: Uint32Array | Int32Array | Uint8Array): number {
  buffer.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), offset);
  return array.byteLength;
}

/** A fresh, aligned copy of a byte range (typed arrays need an offset aligned to their element size). */
function readBytes(buffer: Buffer, offset: number, length: number): ArrayBuffer {
  if (offset + length > buffer.length) throw new Error('lexical index image is truncated');
  return buffer.buffer.slice(buffer.byteOffset + offset, buffer.byteOffset + offset + length) as ArrayBuffer;
}
