import { decodeTokens, encodePiece, splitPattern } from '../tokens/tokenizer.js';

/**
 * Where each token of a text starts, in UTF-16 offsets of the text: the chunker cuts by token
 * counts but slices the original string, so no chunk is ever decoded from tokens (decoding a
 * cut through a multi-byte character would leave a replacement character).
 *
 * Speed: js-tiktoken's `encode` runs byte-pair merging on every regex piece of the text, about
 * 1 MB/s. Tiktoken encodes each piece of its split pattern independently, so the same piece
 * always gives the same tokens; natural text repeats its pieces (words, punctuation, indents),
 * so splitting with the encoding's own pattern and memoising piece → tokens is ~10× faster and
 * yields the same tokens (checked against `encodeTokens` on the whole text in the tests).
 *
 * One exception: js-tiktoken's merge loop is quadratic in the piece length (an 8,000-letter
 * run takes 25 s), so a piece longer than LONG_PIECE characters (a long word-like run: a
 * hash, a minified identifier, "aaaa…") is encoded in slices (`encodePiece`). Its count can then
 * be a few percent above what one encode would give — a chunk holding it is a little smaller
 * than it could be, never larger — and a hostile document cannot stall ingestion.
 */

export interface TokenOffsets {
  /** Number of tokens in the text. */
  count: number;
  /**
   * `starts[i]` = offset where token i starts, `starts[count]` = text.length. A token that begins
   * inside a multi-byte character (its bytes straddle two tokens) has -1: no cut there.
   */
  starts: Int32Array;
}

/** The memo is dropped when it grows past this many pieces, bounding memory on huge inputs. */
const MEMO_MAX_ENTRIES = 200_000;

/**
 * Token start offsets of `text`. Lone surrogates must have been replaced beforehand (see
 * `wellFormed`): the tokenizer encodes them as U+FFFD, which would not match the text.
 */
export function tokenOffsets(text: string): TokenOffsets {
  let starts = new Int32Array(Math.max(16, Math.ceil(text.length / 3)));
  let count = 0;
  const push = (offset: number): void => {
    if (count + 1 >= starts.length) {
      const grown = new Int32Array(starts.length * 2);
      grown.set(starts);
      starts = grown;
    }
    starts[count] = offset;
    count += 1;
  };

  const pieceMemo = new Map<string, number[]>();
  const tokenText = new Map<number, string>();
  const re = splitPattern();
  re.lastIndex = 0;
  let covered = 0;
  for (let match = re.exec(text); match !== null; match = re.exec(text)) {
    const piece = match[0];
    if (piece.length === 0) {
      re.lastIndex += 1;
      continue;
    }
    // The split pattern covers every character; a gap would be a pattern we do not understand.
    if (match.index !== covered) throw new Error(`tokenizer split pattern skipped text at ${covered}`);
    const tokens = encodeMemo(piece, pieceMemo);
    // Walk the piece token by token; a token that is not whole characters on its own is grouped
    // with the next ones until the group decodes to the text (as tokenizer.tokenPieces does).
    let position = match.index;
    const end = position + piece.length;
    let groupStart = 0;
    for (let index = 0; index < tokens.length; index += 1) {
      const token = tokens[index]!;
      let decoded = tokenText.get(token);
      if (decoded === undefined) {
        decoded = decodeTokens([token]);
        tokenText.set(token, decoded);
      }
      if (index === groupStart && text.startsWith(decoded, position)) {
        push(position);
        position += decoded.length;
        groupStart = index + 1;
        continue;
      }
      const group = tokens.slice(groupStart, index + 1);
      const groupText = decodeTokens(group);
      if (index === groupStart) push(position);
      else push(-1);
      if (text.startsWith(groupText, position) && !groupText.endsWith('\uFFFD')) {
        position += groupText.length;
        groupStart = index + 1;
      }
    }
    // Whatever the grouping did, the next piece starts where this one ends.
    covered = end;
  }
  if (covered !== text.length) throw new Error(`tokenizer split pattern stopped at ${covered} of ${text.length}`);
  push(text.length);
  count -= 1;
  return { count, starts: starts.subarray(0, count + 1) };
}

function encodeMemo(piece: string, memo: Map<string, number[]>): number[] {
  let tokens = memo.get(piece);
  if (tokens === undefined) {
    tokens = encodePiece(piece);
    if (memo.size >= MEMO_MAX_ENTRIES) memo.clear();
    memo.set(piece, tokens);
  }
  return tokens;
}

/** Lone UTF-16 surrogates → U+FFFD, as UTF-8 encoding (and so the tokenizer) sees them. */
export function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
