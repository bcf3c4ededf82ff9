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
/** encodeParts' part size. */
const PART_BYTES = 1024 * 1024;
/**
 * Labels per scoring window (see scoreBest): the window's sums and offsets (24 KB) stay in the
 * L1 cache, where a sum per label of the whole store (800 KB at 100,000 chunks, one set per search
 * in flight) missed the caches at nearly every posting.
 */
const WINDOW = 2048;

export interface LexicalScore {
  label: number;
  /** BM25 divided by the query's ceiling (every term at saturation): in [0, 1), BM25's order. */
  score: number;
}

/**
 * How many best labels a caller of Bm25Index.score may ask for, by default (search.ts: at most 50
 * candidates).
 */
export const BEST_KEPT = 50;

/**
 * How many of them a query picks while it is scored; a caller reading past them (LexicalScores.ranked)
 * has the query scored again for as many as it asks. A search asks for 60 lexical candidates but
 * stops reading once the rest cannot reach its results (hybrid-search.ts): over 3,000 searches of
 * bench/ingest.mjs on the kept 100,084-chunk store it read a median of 12, 91% read at most 20 and
 * 5% more than 24. Keeping 24 best rather than 60 costs about a quarter less per query (the
 * best-kept heap takes about 150 labels instead of 320 on bench/bm25.mjs's queries, and hands out
 * 24 instead of 60), more than the scoring again costs the few searches reading past them.
 */
export const FIRST_PICK = 24;

/** One query term as scored: its postings as they were then, and its BM25 constants. */
interface QueryTerm {
  /**
   * The posting list's array when the query was scored, read up to `size`: the index never
   * rewrites a posting once stored (it appends past the size, and compaction writes new arrays),
   * so these stay the postings of that moment whatever is committed or removed later.
   */
  triples: Int32Array;
  size: number;
  /** A posting adds weight × f / (f + normBase + normPerLength × length): norm = k1 × (1 − b + b × length / average), split. */
  weight: number;
  normBase: number;
  normPerLength: number;
}

/** What a query's scores are computed from, fixed when it is scored. */
interface ScoringPlan {
  /** The query's distinct terms that have postings, in the query's order (a label's sum adds them in this order). */
  terms: QueryTerm[];
  /** Which labels were live, when some postings belonged to removed labels; null when every posting was live. */
  present: Uint8Array | null;
  /** The query's ceiling (see Bm25Index.score). */
  ceiling: number;
}

const EMPTY_PLAN: ScoringPlan = { terms: [], present: null, ceiling: 1 };

/**
 * The lexical scores of one query: the best labels, picked when it was scored, and any label's
 * score on demand. Nothing per label is kept: a label's score is summed again from the query
 * terms' postings (a binary search in each), which for the few dozen labels a search asks about
 * costs far less than a score array of the whole store did. The scores are those of the index
 * when the query was scored, whatever changes after.
 */
export class LexicalScores {
  /**
   * The score of the label `ranked` yielded last: the one it was ranked by, which is get's (the
   * same sum in the same term order, divided by the same ceiling), without summing it again from
   * the postings (a binary search per term per label).
   */
  rankedScore = 0;

  constructor(
    private readonly plan: ScoringPlan,
    /** How many live labels match a query term. */
    readonly size: number,
    /** The best of the labels, best first (ties: lower label first): the `picked` best, or all when fewer match. */
    private readonly best: Int32Array,
    /** How many best labels were picked when the query was scored (ranked scores again past them). */
    private readonly picked: number,
    /** The scores of `best`, rank by rank. */
    private readonly bestScores: Float64Array,
  ) {}

  /** Matching labels, in no particular order (for checks: a search reads get and top only). */
  get labels(): Int32Array {
    const { terms, present } = this.plan;
    const labels = new Set<number>();
    for (const { triples, size } of terms) {
      for (let at = 0; at < size * STRIDE; at += STRIDE) if (present === null || present[triples[at]!] === 1) labels.add(triples[at]!);
    }
    return Int32Array.from(labels);
  }

  /**
   * The label's score; 0 when it matches no query term. Summed in the query's term order, as the
   * scoring does, so the bits are the same as the ranking's.
   */
  get(label: number): number {
    const { terms, present, ceiling } = this.plan;
    if (present !== null && present[label] !== 1) return 0;
    let sum = 0;
    for (const term of terms) {
      const at = postingOf(term, label);
      if (at >= 0) sum += contribution(term, term.triples[at + 1]!, term.triples[at + 2]!);
    }
    return sum / ceiling;
  }

  /**
   * The k best-scored labels passing `accept`, best first (ties: lower label first). Taken from
   * the best labels picked at scoring time when they hold k that pass (the order is total, so
   * those are a prefix of every label's order); otherwise (the filter rejected some, or k is past
   * those picked, FIRST_PICK) the query is scored again for k, with the filter. With no filter the
   * k best all pass (bar chunks of a file being removed), and `accept`, a file lookup, runs k times.
   */
  top(k: number, accept?: (label: number) => boolean): number[] {
    return Array.from(this.ranked(k, accept));
  }

  /**
   * top's labels one at a time: `accept` runs for a label only when the caller asks for it, so a
   * caller that stops early (a search's cut-off, hybrid-search.ts) does not look up the files of
   * the rest (of 60 candidates, most are cut).
   */
  *ranked(k: number, accept?: (label: number) => boolean): Generator<number, void, undefined> {
    if (k <= 0) return;
    const taken: number[] = [];
    for (let rank = 0; rank < this.best.length && taken.length < k; rank += 1) {
      const label = this.best[rank]!;
      if (accept !== undefined && !accept(label)) continue;
      taken.push(label);
      this.rankedScore = this.bestScores[rank]!;
      yield label;
    }
    if (taken.length === k || this.best.length < this.picked) return;
    // Those taken are the rescan's first ones, unless a file changed between two labels asked for.
    const rescan = scoreBest(this.plan, k, accept ?? null);
    for (let rank = 0; rank < rescan.best.length; rank += 1) {
      const label = rescan.best[rank]!;
      if (taken.includes(label)) continue;
      this.rankedScore = rescan.scores[rank]!;
      yield label;
    }
  }
}

/** The k best of some distinct labels (small integers) by score, passing `accept`: best first, lower label first on ties. */
export function topLabels(labels: ArrayLike<number>, scoreOf: (label: number) => number, k: number, accept: (label: number) => boolean): number[] {
  if (k <= 0) return [];
  const best = new BestLabels(k);
  for (let index = 0; index < labels.length; index += 1) {
    const label = labels[index]!;
    const score = scoreOf(label);
    if (best.admits(label, score) && accept(label)) best.add(label, score);
  }
  return Array.from(best.result().labels);
}

/**
 * The k best labels offered (best first, lower label first on ties), in a binary heap whose root
 * is the worst kept: a label that cannot enter costs a comparison or two (`admits`, before any
 * filter runs), one that enters log k steps. A sorted array shifting the worse ones down cost as
 * much as the scoring: a query offers thousands of labels and a few hundred of them enter.
 */
class BestLabels {
  private readonly labels: Int32Array;
  private readonly scores: Float64Array;
  private kept = 0;
  /** The root's score and label once k are kept (until then everything enters). */
  private floor = -Infinity;
  private floorLabel = Infinity;

  constructor(private readonly k: number) {
    this.labels = new Int32Array(k);
    this.scores = new Float64Array(k);
  }

  admits(label: number, score: number): boolean {
    return score > this.floor || (score === this.floor && label < this.floorLabel);
  }

  /**
   * A sum whose score (sum / divisor) is surely below the floor when the sum is below it: the
   * floor's sum less a margin far above the two roundings (of the division, of this product),
   * so a label skipped by it could not have entered, and the best are the same.
   */
  sumBelowFloor(divisor: number): number {
    return this.floor * divisor * (1 - 2 ** -30);
  }

  /** Adds a label that `admits` let in (in place of the worst kept once k are). */
  add(label: number, score: number): void {
    const { labels, scores, k } = this;
    if (this.kept < k) {
      // Up from the new leaf while the parent is better.
      let position = this.kept++;
      while (position > 0) {
        const parent = (position - 1) >> 1;
        if (!worse(score, label, scores[parent]!, labels[parent]!)) break;
        labels[position] = labels[parent]!;
        scores[position] = scores[parent]!;
        position = parent;
      }
      labels[position] = label;
      scores[position] = score;
    } else {
      this.siftDown(k, label, score);
    }
    if (this.kept === k) {
      this.floor = scores[0]!;
      this.floorLabel = labels[0]!;
    }
  }

  /** The kept labels and their scores, best first (the heap is spent: the worst is taken from the root, last to first). */
  result(): { labels: Int32Array; scores: Float64Array } {
    const { labels, scores } = this;
    const result = new Int32Array(this.kept);
    const resultScores = new Float64Array(this.kept);
    for (let size = this.kept; size > 0; size -= 1) {
      result[size - 1] = labels[0]!;
      resultScores[size - 1] = scores[0]!;
      this.siftDown(size - 1, labels[size - 1]!, scores[size - 1]!);
    }
    this.kept = 0;
    return { labels: result, scores: resultScores };
  }

  /** Puts (label, score) in the root's place of the heap's first `size` entries, moving it down while a child is worse. */
  private siftDown(size: number, label: number, score: number): void {
    const { labels, scores } = this;
    let position = 0;
    for (;;) {
      let child = 2 * position + 1;
      if (child >= size) break;
      if (child + 1 < size && worse(scores[child + 1]!, labels[child + 1]!, scores[child]!, labels[child]!)) child += 1;
      if (!worse(scores[child]!, labels[child]!, score, label)) break;
      labels[position] = labels[child]!;
      scores[position] = scores[child]!;
      position = child;
    }
    labels[position] = label;
    scores[position] = score;
  }
}

/** Whether (score, label) ranks below (otherScore, otherLabel): a lower score, or the same and a higher label. */
function worse(score: number, label: number, otherScore: number, otherLabel: number): boolean {
  return score < otherScore || (score === otherScore && label > otherLabel);
}

/** What one posting adds to its label's sum (the same expression everywhere, so the same bits). */
function contribution(term: QueryTerm, frequency: number, length: number): number {
  return (term.weight * frequency) / (frequency + term.normBase + term.normPerLength * length);
}

/** The offset of the label's posting in the term's triples (they are in ascending label order), or -1. */
function postingOf(term: QueryTerm, label: number): number {
  const { triples } = term;
  let low = 0;
  let high = term.size - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = triples[middle * STRIDE]!;
    if (found === label) return middle * STRIDE;
    if (found < label) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** One window's sums by offset from its first label (all zero between windows) and the offsets matched in it. */
interface WindowScratch {
  sums: Float64Array;
  offsets: Int32Array;
}

/** The window arrays, reused by every query (scoring is synchronous); taken while in use, so a nested scoring allocates its own. */
let idleWindow: WindowScratch | null = null;

/**
 * Scores a plan's labels and picks the k best passing `accept` (null: all pass), counting the
 * matching labels. The postings are walked a window of labels at a time, every term's postings in
 * the window before the next window: each label's sum adds its terms in the query's order (as
 * get does) in a small array that stays in the L1 cache, and a label's score is final when its
 * window ends, so it is offered to the best at once.
 */
function scoreBest(plan: ScoringPlan, k: number, accept: ((label: number) => boolean) | null): { best: Int32Array; scores: Float64Array; matched: number } {
  const { terms, present, ceiling } = plan;
  const window = idleWindow ?? { sums: new Float64Array(WINDOW), offsets: new Int32Array(WINDOW) };
  idleWindow = null;
  const best = new BestLabels(Math.max(k, 0));
  const cursors = new Int32Array(terms.length);
  let matched = 0;
  let sumFloor = k > 0 ? -Infinity : Infinity;
  try {
    for (;;) {
      // The next window starts at the lowest label a term has left (gaps between postings are skipped).
      let start = -1;
      for (let index = 0; index < terms.length; index += 1) {
        const { triples, size } = terms[index]!;
        if (cursors[index]! < size * STRIDE && (start < 0 || triples[cursors[index]!]! < start)) start = triples[cursors[index]!]!;
      }
      if (start < 0) break;
      const hits = sumWindow(terms, cursors, present, start, window);
      matched += hits;
      const { sums, offsets } = window;
      for (let hit = 0; hit < hits; hit += 1) {
        const offset = offsets[hit]!;
        const sum = sums[offset]!;
        sums[offset] = 0;
        // Most labels fall short of the best kept: told by their sum, without the division.
        if (sum < sumFloor) continue;
        const label = start + offset;
        const score = sum / ceiling;
        if (!best.admits(label, score) || (accept !== null && !accept(label))) continue;
        best.add(label, score);
        sumFloor = best.sumBelowFloor(ceiling);
      }
    }
  } catch (error) {
    window.sums.fill(0); // an `accept` that threw left sums behind
    throw error;
  } finally {
    idleWindow = window;
  }
  const { labels, scores } = best.result();
  return { best: labels, scores, matched };
}

/**
 * Adds every term's postings for labels start … start + WINDOW − 1 to the window's sums (moving
 * the terms' cursors past them), recording the offsets matched for the first time. Returns how
 * many. A contribution is never 0 (IDF and frequency are positive), so a zero sum means unmatched.
 * Two loops, one per case of `present`: with no removed label awaiting compaction no posting needs
 * its presence checked, and the loop without the check (and with the term's constants in locals:
 * contribution spelled out, the same expression) took 10% less per query.
 */
function sumWindow(terms: readonly QueryTerm[], cursors: Int32Array, present: Uint8Array | null, start: number, window: WindowScratch): number {
  const { sums, offsets } = window;
  const end = start + WINDOW;
  let hits = 0;
  for (let index = 0; index < terms.length; index += 1) {
    const term = terms[index]!;
    const { triples, weight, normBase, normPerLength } = term;
    const stop = term.size * STRIDE;
    let at = cursors[index]!;
    if (present === null) {
      for (; at < stop; at += STRIDE) {
        const label = triples[at]!;
        if (label >= end) break;
        const offset = label - start;
        const frequency = triples[at + 1]!;
        const sum = sums[offset]!;
        if (sum === 0) offsets[hits++] = offset;
        sums[offset] = sum + (weight * frequency) / (frequency + normBase + normPerLength * triples[at + 2]!);
      }
    } else {
      for (; at < stop; at += STRIDE) {
        const label = triples[at]!;
        if (label >= end) break;
        if (present[label] !== 1) continue;
        const offset = label - start;
        if (sums[offset] === 0) offsets[hits++] = offset;
        sums[offset]! += contribution(term, triples[at + 1]!, triples[at + 2]!);
      }
    }
    cursors[index] = at;
  }
  return hits;
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
   * Whether a query's scores read `present` (ScoringPlan): it is then copied before a change, so
   * those scores stay as they were (a removal is rare next to searches).
   */
  private presentShared = false;

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
    this.writablePresent()[label] = 1;
    this.lengths[label] = terms.length;
    this.distinct[label] = counts.size;
    this.liveCount += 1;
    this.totalLength += terms.length;
    this.storedPostings += counts.size;
  }

  remove(label: number): void {
    if (!this.has(label)) return;
    this.writablePresent()[label] = 0;
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
   * The best labels are picked at once, FIRST_PICK of the `bestKept` a caller may ask for (a
   * search's top() then reads no other score unless it reads past them).
   */
  score(queryTerms: readonly string[], bestKept = BEST_KEPT): LexicalScores {
    const unique = [...new Set(queryTerms)];
    const picked = Math.min(bestKept, FIRST_PICK);
    if (unique.length === 0 || this.liveCount === 0) return new LexicalScores(EMPTY_PLAN, 0, new Int32Array(0), picked, new Float64Array(0));
    const averageLength = this.totalLength / this.liveCount || 1;
    const { k1, b } = BM25;
    const terms: QueryTerm[] = [];
    let ceiling = 0;
    for (const term of unique) {
      const list = this.postings.get(term);
      const documentFrequency = list === undefined ? 0 : this.liveFrequency(list);
      const idf = Math.log(1 + (this.liveCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
      ceiling += idf * (k1 + 1);
      if (list !== undefined) terms.push({ triples: list.triples, size: list.size, weight: idf * (k1 + 1), normBase: k1 * (1 - b), normPerLength: (k1 * b) / averageLength });
    }
    // With no removed label awaiting compaction, no posting needs its presence checked.
    if (this.deadPostings > 0) this.presentShared = true;
    const plan: ScoringPlan = { terms, present: this.deadPostings > 0 ? this.present : null, ceiling };
    const { best, scores, matched } = scoreBest(plan, picked, null);
    return new LexicalScores(plan, matched, best, picked, scores);
  }

  /** Live documents in a posting list: its size, less removed labels not yet compacted away. */
  private liveFrequency(list: Postings): number {
    if (this.deadPostings === 0) return list.size;
    let live = 0;
    for (let index = 0; index < list.size * STRIDE; index += STRIDE) if (this.present[list.triples[index]!] === 1) live += 1;
    return live;
  }

  /** `present`, copied first when a query's scores read it. */
  private writablePresent(): Uint8Array {
    if (this.presentShared) {
      this.present = this.present.slice();
      this.presentShared = false;
    }
    return this.present;
  }

  private ensureLabel(label: number): void {
    if (label < this.present.length) return;
    const capacity = Math.max(1024, label + 1, this.present.length * 2);
    this.lengths = grow(this.lengths, capacity);
    this.distinct = grow(this.distinct, capacity);
    this.present = grow(this.present, capacity);
    this.presentShared = false;
  }

  private append(term: string, label: number, frequency: number, length: number): void {
    let list = this.postings.get(term);
    if (list === undefined) {
      list = { triples: new Int32Array(2 * STRIDE), size: 0 };
      this.postings.set(term, list);
    }
    const { triples, size } = list;
    // Below a label already listed (a label indexed again; the store assigns growing labels):
    // into its place in a new array, as a posting once stored is never rewritten (QueryTerm).
    let at = size * STRIDE;
    while (at > 0 && triples[at - STRIDE]! > label) at -= STRIDE;
    if (at < size * STRIDE || size * STRIDE === triples.length) {
      list.triples = new Int32Array(size * STRIDE === triples.length ? triples.length * 2 : triples.length);
      list.triples.set(triples.subarray(0, at));
      list.triples.set(triples.subarray(at, size * STRIDE), at + STRIDE);
    }
    list.triples[at] = label;
    list.triples[at + 1] = frequency;
    list.triples[at + 2] = length;
    list.size += 1;
  }

  /**
   * Drops the postings of removed labels (and terms left with none). A list that loses postings
   * gets a new array (a query scored earlier still reads the old one, QueryTerm).
   */
  compact(): void {
    for (const [term, list] of this.postings) {
      const { triples, size } = list;
      let kept = 0;
      for (let index = 0; index < size * STRIDE; index += STRIDE) if (this.present[triples[index]!] === 1) kept += 1;
      if (kept === size) continue;
      if (kept === 0) {
        this.postings.delete(term);
        continue;
      }
      // As much room as before unless it would be mostly empty.
      const compacted = new Int32Array(kept * STRIDE * 2 < triples.length ? Math.max(2 * STRIDE, kept * STRIDE) : triples.length);
      let at = 0;
      for (let index = 0; index < size * STRIDE; index += STRIDE) {
        if (this.present[triples[index]!] !== 1) continue;
        compacted[at] = triples[index]!;
        compacted[at + 1] = triples[index + 1]!;
        compacted[at + 2] = triples[index + 2]!;
        at += STRIDE;
      }
      list.triples = compacted;
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
    if (posting > 0 && label <= triples[(posting - 1) * STRIDE]!) throw new Error('lexical index image has postings out of label order');
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
