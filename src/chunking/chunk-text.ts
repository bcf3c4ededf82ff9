import { CutQuality, cutQuality } from './boundaries.js';
import { tokenOffsets, wellFormed } from './token-offsets.js';

/** One piece of a document, as embedded and shown in search results. */
export interface Chunk {
  text: string;
  /** Tokens (o200k) this chunk spans in the document's tokenization, at most `maxTokens`. */
  tokens: number;
}

export interface ChunkOptions {
  /** Largest chunk, in tokens (≥ 1). */
  maxTokens: number;
  /** Tokens each chunk repeats from the end of the previous one (0 ≤ overlap < maxTokens). */
  overlapTokens: number;
}

/**
 * Splits text into chunks of at most `maxTokens` tokens, each starting `overlapTokens` tokens
 * before the previous one ended, so a passage cut at a chunk edge is whole in one of them.
 *
 * Where a chunk ends: the best boundary in the second half of its window — a blank line, else a
 * line break, else a sentence end, else a space, else (one unbroken run) the window's end; the
 * latest of equally good ones. Where the next one starts: `overlapTokens` back, moved forward
 * (by at most a quarter of the overlap) to the best boundary there so it does not open mid-word.
 * Whitespace-only tokens at either edge are left out, so no chunk is empty or blank.
 *
 * The text is tokenized once; chunks are slices of the original string between token offsets,
 * never decoded from tokens. Deterministic: the same text and options give the same chunks.
 */
export function chunkText(text: string, options: ChunkOptions): Chunk[] {
  const { maxTokens, overlapTokens } = options;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) throw new RangeError(`maxTokens must be a positive integer (got ${maxTokens})`);
  if (!Number.isInteger(overlapTokens) || overlapTokens < 0 || overlapTokens >= maxTokens) {
    throw new RangeError(`overlapTokens must be an integer from 0 to maxTokens - 1 (got ${overlapTokens})`);
  }
  const source = wellFormed(text);
  if (source.trim() === '') return [];
  const { count, starts } = tokenOffsets(source);

  const cuttable = (index: number): boolean => starts[index]! >= 0;
  const nextCuttable = (index: number): number => {
    let next = index + 1;
    while (next < count && !cuttable(next)) next += 1;
    return next;
  };
  const previousCuttable = (index: number): number => {
    let previous = index - 1;
    while (previous > 0 && !cuttable(previous)) previous -= 1;
    return previous;
  };
  const blank = (from: number, to: number): boolean => /^\s*$/.test(source.slice(starts[from]!, starts[to]!));

  const chunks: Chunk[] = [];
  const emit = (from: number, to: number): void => {
    let first = from;
    let last = to;
    // Leading / trailing whitespace-only tokens (a blank line's "\n\n") carry nothing.
    while (first < last) {
      const next = nextCuttable(first);
      if (!blank(first, next)) break;
      first = next;
    }
    while (last > first) {
      const previous = previousCuttable(last);
      if (!blank(previous, last)) break;
      last = previous;
    }
    // Tokens that mix text and whitespace (" word", ".\n\n") keep theirs in `tokens` only.
    if (last > first) chunks.push({ text: source.slice(starts[first]!, starts[last]!).trim(), tokens: last - first });
  };

  let start = 0;
  for (;;) {
    if (count - start <= maxTokens) {
      emit(start, count);
      return chunks;
    }
    const end = chooseEnd(source, starts, start, maxTokens, overlapTokens, count);
    emit(start, end);
    if (end >= count) return chunks;
    let next = overlapTokens === 0 ? end : chooseStart(source, starts, Math.max(0, end - overlapTokens), end, overlapTokens);
    // A window shrunk by a multi-token character can leave no room for the overlap: move on anyway.
    if (next <= start) next = nextCuttable(start);
    start = next;
  }
}

/** Where the chunk starting at `start` ends (a token index in (start, count)). */
function chooseEnd(source: string, starts: Int32Array, start: number, maxTokens: number, overlapTokens: number, count: number): number {
  let high = start + maxTokens;
  while (high > start && starts[high]! < 0) high -= 1;
  // Only possible for windows of a few tokens inside one multi-token character: go past it.
  if (high === start) {
    high = start + maxTokens;
    while (high < count && starts[high]! < 0) high += 1;
    return high;
  }
  // The cut stays past the overlap so the next chunk starts after this one did (progress).
  const low = Math.min(high, start + Math.max(Math.ceil(maxTokens / 2), overlapTokens + 1));
  let best = high;
  let bestQuality: number = cutQuality(source, starts[high]!);
  for (let index = high - 1; index >= low && bestQuality < CutQuality.Paragraph; index -= 1) {
    const offset = starts[index]!;
    if (offset < 0) continue;
    const quality = cutQuality(source, offset);
    if (quality > bestQuality) {
      best = index;
      bestQuality = quality;
    }
  }
  return best;
}

/** Where the next chunk starts: from `from` (end − overlap), at the best boundary close after it. */
function chooseStart(source: string, starts: Int32Array, from: number, end: number, overlapTokens: number): number {
  const limit = Math.min(end - 1, from + Math.floor(overlapTokens / 4));
  let best = -1;
  let bestQuality = -1;
  for (let index = from; index <= limit; index += 1) {
    const offset = starts[index]!;
    if (offset < 0) continue;
    const quality = index === 0 ? CutQuality.Paragraph : cutQuality(source, offset);
    if (quality > bestQuality) {
      best = index;
      bestQuality = quality;
      if (quality === CutQuality.Paragraph) break;
    }
  }
  if (best >= 0) return best;
  let index = from;
  while (index < end && starts[index]! < 0) index += 1;
  return index;
}
