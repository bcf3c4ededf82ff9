import type { EmbeddingsResult } from '../types.js';

/**
 * An OpenAI-compatible embeddings answer read without turning its vectors into numbers (issue 18,
 * item 3). igw changes nothing inside a float vector, yet parsing one (JSON.parse) and writing it
 * back (JSON.stringify: shortest round-trip formatting per double) cost more than the rest of an
 * embeddings request together. Here each `data[i].embedding` array is located in the text and
 * checked against the JSON number grammar, the small rest of the body is parsed as usual, and the
 * vectors are kept as the upstream's own text for the endpoint to splice into its answer.
 *
 * Anything unusual (base64 strings, a body this reader cannot place with certainty) returns
 * undefined, and the caller takes the full parse path, which judges and words every fault.
 */
export function readEmbeddingsBody(text: string, expectedCount: number): EmbeddingsResult | undefined {
  // The placeholders below are NUL-led strings; a body that could already hold one is left to the full path.
  if (text.includes('\\u0000')) return undefined;
  const vectorsJson: string[] = [];
  let skeleton = '';
  let copiedUpTo = 0;
  for (let from = 0; ; ) {
    const key = text.indexOf('"embedding"', from);
    if (key === -1) break;
    from = key + 11;
    const open = skipWhitespace(text, skipWhitespace(text, from) + 1);
    if (text.charCodeAt(skipWhitespace(text, from)) !== COLON || text.charCodeAt(open) !== OPEN_BRACKET) continue;
    const end = endOfNumberArray(text, open);
    if (end === -1) return undefined;
    skeleton += `${text.slice(copiedUpTo, open)}"\\u0000${vectorsJson.length}"`;
    vectorsJson.push(text.slice(open, end));
    copiedUpTo = end;
    from = end;
  }
  if (vectorsJson.length !== expectedCount) return undefined;
  skeleton += text.slice(copiedUpTo);
  let body: unknown;
  try {
    body = JSON.parse(skeleton);
  } catch {
    return undefined;
  }
  // Every placeholder must have landed exactly on data[i].embedding, and nowhere else.
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== expectedCount) return undefined;
  const ordered = new Array<string>(expectedCount);
  for (let position = 0; position < data.length; position += 1) {
    const item = data[position] as { index?: unknown; embedding?: unknown } | null;
    if (typeof item !== 'object' || item === null || item.embedding !== `\u0000${position}`) return undefined;
    const index = item.index ?? position;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= expectedCount || ordered[index] !== undefined) return undefined;
    ordered[index] = vectorsJson[position]!;
  }
  return withRawVectors(ordered, promptTokensOf((body as { usage?: unknown }).usage));
}

/** An embeddings result carrying its vectors as JSON text; the numbers are parsed only if someone reads `vectors`. */
export function withRawVectors(vectorsJson: string[], promptTokens: number): EmbeddingsResult {
  let vectors: number[][] | undefined;
  return {
    get vectors(): number[][] {
      vectors ??= JSON.parse(`[${vectorsJson.join(',')}]`) as number[][];
      return vectors;
    },
    vectorsJson,
    promptTokens,
  };
}

/** Same reading as the full path (wire.ts upstreamEmbeddingsResponseSchema: a count that is no number counts as absent). */
function promptTokensOf(usage: unknown): number {
  if (typeof usage !== 'object' || usage === null) return 0;
  const { prompt_tokens: prompt, total_tokens: total } = usage as { prompt_tokens?: unknown; total_tokens?: unknown };
  return (typeof prompt === 'number' ? prompt : undefined) ?? (typeof total === 'number' ? total : undefined) ?? 0;
}

const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

function skipWhitespace(text: string, at: number): number {
  let index = at;
  for (let code = text.charCodeAt(index); code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09; code = text.charCodeAt(++index));
  return index;
}

function skipDigits(text: string, at: number): number {
  let index = at;
  for (let code = text.charCodeAt(index); code >= ZERO && code <= NINE; code = text.charCodeAt(++index));
  return index;
}

/**
 * The index just past the `]` of the array of JSON numbers (RFC 8259 §6 grammar) opening at
 * `open`, or -1 when the value there is anything else. A hand loop: no regex backtracking, no
 * allocation.
 */
export function endOfNumberArray(text: string, open: number): number {
  let index = skipWhitespace(text, open + 1);
  if (text.charCodeAt(index) === CLOSE_BRACKET) return index + 1;
  for (;;) {
    if (text.charCodeAt(index) === MINUS) index += 1;
    const first = text.charCodeAt(index);
    if (first === ZERO) index += 1;
    else if (first > ZERO && first <= NINE) {
      const digits = skipDigits(text, index + 1);
      // So many digits could overflow to Infinity, which the full path refuses: let it judge.
      if (digits - index > 300) return -1;
      index = digits;
    } else return -1;
    if (text.charCodeAt(index) === DOT) {
      const digits = skipDigits(text, index + 1);
      if (digits === index + 1) return -1;
      index = digits;
    }
    const exponent = text.charCodeAt(index);
    if (exponent === 0x65 || exponent === 0x45) {
      index += 1;
      const sign = text.charCodeAt(index);
      if (sign === PLUS || sign === MINUS) index += 1;
      const digits = skipDigits(text, index);
      // No digits is no number; three or more might overflow (1e999): the full path judges those.
      if (digits === index || digits - index > 2) return -1;
      index = digits;
    }
    index = skipWhitespace(text, index);
    const next = text.charCodeAt(index);
    if (next === CLOSE_BRACKET) return index + 1;
    if (next !== COMMA) return -1;
    index = skipWhitespace(text, index + 1);
  }
}
