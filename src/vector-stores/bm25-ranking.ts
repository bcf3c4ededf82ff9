/**
 * One query's lexical ranking without scoring every posting (issue 16: at 100,000 chunks a common
 * query term has 5–10k postings, most of them chunks that cannot reach the top). MaxScore, term at
 * a time: the query's terms are taken by their highest possible contribution, rarest first; once
 * the best `k` partial scores exceed what every term still unread could add together, a chunk none
 * of the read terms matched cannot reach the top, so the unread terms are only looked up (binary
 * search in their label-sorted postings) for the chunks that still could. The result is exact:
 * the same labels, in the same order, with the same scores (each computed in the query's term
 * order, as Bm25Index.score adds them) as scoring everything.
 */

/** One query term's postings, as Bm25Index holds them, with its weight and bounds. */
export interface RankedTerm {
  /** label, frequency, … (ascending labels: see Bm25Index's `ascending`). */
  pairs: Int32Array;
  size: number;
  /** IDF × (k1 + 1). */
  weight: number;
  /** The most this term adds to any chunk's BM25 (its largest frequency in its shortest chunk). */
  bound: number;
}

export interface RankingContext {
  /** In the query's term order; null for a term the store lacks. */
  terms: ReadonlyArray<RankedTerm | null>;
  present: Uint8Array;
  lengths: Uint32Array;
  normBase: number;
  normPerLength: number;
  /** The query's ceiling (Bm25Index.score divides by it). */
  ceiling: number;
  /** A zeroed dense array over labels, and its way back (zeroed again) once done. */
  borrow(): Float64Array;
  giveBack(scores: Float64Array, touched: ArrayLike<number>, count: number): void;
}

/** What a search needs of its lexical side: a chunk's score, and the best chunks. */
export interface LexicalRanking {
  /** The label's normalised BM25 in [0, 1); 0 when it matches no query term. */
  get(label: number): number;
  /** The k best-scored labels passing `accept`, best first (ties: lower label first). */
  top(k: number, accept?: (label: number) => boolean): number[];
  /** Nothing held after this (kept for the caller's symmetry with LexicalScores). */
  release(): void;
}

/** Slack for rounding when a sum of bounds is compared with a sum of scores added in another order. */
const SLACK = 1e-9;

export class PrunedRanking implements LexicalRanking {
  private readonly known = new Map<number, number>();

  constructor(private readonly context: RankingContext) {}

  get(label: number): number {
    let score = this.known.get(label);
    if (score !== undefined) return score;
    const { terms, present, lengths, normBase, normPerLength, ceiling } = this.context;
    let sum = 0;
    if (present[label] === 1) {
      for (const term of terms) {
        if (term === null) continue;
        const frequency = frequencyOf(term, label);
        if (frequency > 0) sum += (term.weight * frequency) / (frequency + normBase + normPerLength * lengths[label]!);
      }
    }
    score = sum / ceiling;
    this.known.set(label, score);
    return score;
  }

  top(k: number, accept: (label: number) => boolean = () => true): number[] {
    if (k <= 0) return [];
    const { present, lengths, normBase, normPerLength } = this.context;
    const order = this.context.terms.filter((term): term is RankedTerm => term !== null && term.size > 0).sort((left, right) => right.bound - left.bound);
    const remaining = new Float64Array(order.length + 1);
    for (let index = order.length - 1; index >= 0; index -= 1) remaining[index] = remaining[index + 1]! + order[index]!.bound;

    const partial = this.context.borrow();
    let matched = new Int32Array(256);
    let matchedCount = 0;
    let threshold = -Infinity;
    let read = 0;
    try {
      for (; read < order.length; read += 1) {
        if (matchedCount >= k) {
          threshold = kthPartial(partial, matched, matchedCount, k, accept);
          if (remaining[read]! * (1 + SLACK) < threshold) break;
        }
        const { pairs, size, weight } = order[read]!;
        for (let index = 0; index < size * 2; index += 2) {
          const label = pairs[index]!;
          if (present[label] !== 1) continue;
          const frequency = pairs[index + 1]!;
          if (partial[label] === 0) {
            if (matchedCount === matched.length) {
              const bigger = new Int32Array(matched.length * 2);
              bigger.set(matched);
              matched = bigger;
            }
            matched[matchedCount++] = label;
          }
          partial[label]! += (weight * frequency) / (frequency + normBase + normPerLength * lengths[label]!);
        }
      }
      if (matchedCount >= k) threshold = kthPartial(partial, matched, matchedCount, k, accept);
      // A chunk whose partial score plus everything unread stays below the k-th best partial cannot be in the top.
      const reach = remaining[read]!;
      const survivors: number[] = [];
      for (let index = 0; index < matchedCount; index += 1) {
        const label = matched[index]!;
        if ((partial[label]! + reach) * (1 + SLACK) >= threshold) survivors.push(label);
      }
      return topByScore(survivors, (label) => this.get(label), k, accept);
    } finally {
      this.context.giveBack(partial, matched, matchedCount);
    }
  }

  release(): void {
    this.known.clear();
  }
}

/** A term's frequency in a chunk: binary search over its label-sorted postings (0 when absent). */
function frequencyOf(term: RankedTerm, label: number): number {
  const { pairs } = term;
  let low = 0;
  let high = term.size - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const found = pairs[middle * 2]!;
    if (found === label) return pairs[middle * 2 + 1]!;
    if (found < label) low = middle + 1;
    else high = middle - 1;
  }
  return 0;
}

/** The k-th best partial score among accepted labels (−∞ with fewer than k). */
function kthPartial(partial: Float64Array, matched: Int32Array, count: number, k: number, accept: (label: number) => boolean): number {
  const best = topByScore(matched.subarray(0, count), (label) => partial[label]!, k, accept);
  return best.length < k ? -Infinity : partial[best[k - 1]!]!;
}

/** The k best labels by score passing `accept`, best first, lower label first on ties; `accept` is asked only of labels that would enter. */
export function topByScore(labels: ArrayLike<number>, scoreOf: (label: number) => number, k: number, accept: (label: number) => boolean): number[] {
  if (k <= 0) return [];
  const bestLabels: number[] = [];
  const bestScores: number[] = [];
  let floor = -Infinity;
  let floorLabel = Infinity;
  for (let index = 0; index < labels.length; index += 1) {
    const label = labels[index]!;
    const score = scoreOf(label);
    if (score < floor || (score === floor && label > floorLabel)) continue;
    if (!accept(label)) continue;
    let position = bestLabels.length;
    while (position > 0 && (bestScores[position - 1]! < score || (bestScores[position - 1]! === score && bestLabels[position - 1]! > label))) position -= 1;
    bestLabels.splice(position, 0, label);
    bestScores.splice(position, 0, score);
    if (bestLabels.length > k) {
      bestLabels.pop();
      bestScores.pop();
    }
    if (bestLabels.length === k) {
      floor = bestScores[k - 1]!;
      floorLabel = bestLabels[k - 1]!;
    }
  }
  return bestLabels;
}
