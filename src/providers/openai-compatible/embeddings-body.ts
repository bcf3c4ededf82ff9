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

function skipWhitespace(text: string, at: number): number {
  let index = at;
  for (let code = text.charCodeAt(index); code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09; code = text.charCodeAt(++index));
  return index;
}

/**
 * One JSON number (RFC 8259 §6), within the bounds the full path agrees with: at most 300 integer
 * digits and a one- or two-digit exponent (more might overflow to Infinity, which the full path
 * refuses: those bodies are left to it).
 */
const NUMBER = '-?(?:0|[1-9][0-9]{0,299})(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]{1,2})?';
const SPACE = '[ \\t\\n\\r]*';
/**
 * A whole array of such numbers, anchored where matching starts (sticky). A regular expression,
 * not a hand loop: V8 compiles it to machine code, about 3x faster over a 256-float vector than
 * the charCodeAt loop it replaces (issue 18 item 3). No branch can match what another does, so a
 * failing body backtracks in linear time.
 */
const NUMBER_ARRAY = new RegExp(`\\[${SPACE}(?:${NUMBER}${SPACE}(?:,${SPACE}${NUMBER}${SPACE})*)?\\]`, 'y');

/**
 * The index just past the `]` of the array of JSON numbers opening at `open`, or -1 when the
 * value there is anything else.
 */
export function endOfNumberArray(text: string, open: number): number {
  NUMBER_ARRAY.lastIndex = open;
  return NUMBER_ARRAY.test(text) ? NUMBER_ARRAY.lastIndex : -1;
}
