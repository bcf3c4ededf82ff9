import { rankOf, type RankTable } from './rank-table.js';

/**
 * tiktoken's encoding over the compact rank table (rank-table.ts): split the text with the
 * encoding's pattern, then byte-pair merge each piece — repeatedly merge the adjacent pair with
 * the lowest rank, leftmost first — exactly as js-tiktoken's `encode(text, [], [])` does
 * (special-token spellings are plain text). The pair ranks are kept in an array and only the two
 * neighbours of a merge are looked up again, so a piece costs O(n²) byte moves at worst, not
 * O(n²) hash lookups. Checked token for token against js-tiktoken in test/unit/tokens.
 */
export class BytePairEncoder {
  private readonly utf8 = new TextEncoder();
  private readonly decoder = new TextDecoder('utf-8');
  private scratch = new Uint8Array(1024);
  private bounds = new Int32Array(1025);
  private pairRanks = new Int32Array(1024);

  constructor(
    private readonly table: RankTable,
    private readonly pattern: RegExp,
  ) {}

  /** Tokens of `text` (all pieces of the split pattern). */
  encode(text: string): number[] {
    const tokens: number[] = [];
    const pattern = this.pattern;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      if (match[0].length === 0) {
        pattern.lastIndex += 1;
        continue;
      }
      this.encodePiece(match[0], tokens);
    }
    return tokens;
  }

  /** Appends the tokens of one piece of the split pattern to `out`. */
  encodePiece(piece: string, out: number[]): void {
    if (piece.length * 3 > this.scratch.length) this.grow(piece.length * 3);
    const length = this.utf8.encodeInto(piece, this.scratch).written;
    const bytes = this.scratch;
    const whole = rankOf(this.table, bytes, 0, length);
    if (whole >= 0) {
      out.push(whole);
      return;
    }
    // bounds[0..parts] are the part boundaries; pairRanks[i] is the rank of parts i and i+1 joined.
    const bounds = this.bounds;
    const pairRanks = this.pairRanks;
    let parts = length;
    for (let i = 0; i <= length; i++) bounds[i] = i;
    for (let i = 0; i < parts - 1; i++) pairRanks[i] = rankOf(this.table, bytes, i, i + 2);
    while (parts > 1) {
      let best = -1;
      let bestRank = 0x7fffffff;
      for (let i = 0; i < parts - 1; i++) {
        const rank = pairRanks[i]!;
        if (rank >= 0 && rank < bestRank) {
          bestRank = rank;
          best = i;
        }
      }
      if (best < 0) break;
      // Parts best and best+1 become one: drop boundary best+1 and the pair rank at best+1.
      bounds.copyWithin(best + 1, best + 2, parts + 1);
      pairRanks.copyWithin(best + 1, best + 2, parts - 1);
      parts -= 1;
      if (best > 0) pairRanks[best - 1] = rankOf(this.table, bytes, bounds[best - 1]!, bounds[best + 1]!);
      if (best < parts - 1) pairRanks[best] = rankOf(this.table, bytes, bounds[best]!, bounds[best + 2]!);
    }
    for (let i = 0; i < parts; i++) {
      const rank = rankOf(this.table, bytes, bounds[i]!, bounds[i + 1]!);
      if (rank >= 0) out.push(rank);
    }
  }

  /** The text of `tokens`; unknown ids are skipped, special tokens decode to their spelling. */
  decode(tokens: readonly number[]): string {
    const { bytes, starts, special } = this.table;
    const ordinary = (token: number): boolean => Number.isInteger(token) && token >= 0 && token < starts.length - 1;
    let length = 0;
    for (const token of tokens) length += ordinary(token) ? starts[token + 1]! - starts[token]! : (special.get(token)?.length ?? 0);
    const joined = new Uint8Array(length);
    let at = 0;
    for (const token of tokens) {
      if (ordinary(token)) {
        joined.set(bytes.subarray(starts[token]!, starts[token + 1]!), at);
        at += starts[token + 1]! - starts[token]!;
      } else {
        const spelling = special.get(token);
        if (spelling !== undefined) {
          joined.set(spelling, at);
          at += spelling.length;
        }
      }
    }
    return this.decoder.decode(joined);
  }

  private grow(bytes: number): void {
    this.scratch = new Uint8Array(bytes);
    this.bounds = new Int32Array(bytes + 1);
    this.pairRanks = new Int32Array(bytes);
  }
}
