import { GatewayError } from '../../errors/gateway-error.js';
import { wordTokens } from './word-tokens.js';

/**
 * `local-embed` (DESIGN §3): a feature-hashing embedder, not a neural model. Words and the
 * character trigrams of each word are hashed into a fixed 384-dimensional space with a random
 * sign per feature (so collisions cancel on average instead of piling up), weighted by
 * sublinear term frequency and L2-normalised. Texts that share words or word fragments get a
 * higher cosine than unrelated texts; word-level synonyms are out of its reach.
 */

export const HASH_EMBED_DIMENSIONS = 384;

/** Whole words carry more meaning than fragments; trigrams mostly add robustness to inflection and typos. */
const WORD_WEIGHT = 1;
const TRIGRAM_WEIGHT = 0.5;
/** Gives an empty (or punctuation-only) text a unit vector instead of an all-zero one. */
const EMPTY_FEATURE = '\u0000empty';

/** Embeds text; `dimensions` (1..384) keeps the first d components and re-normalises. */
export function embedText(text: string, dimensions: number = HASH_EMBED_DIMENSIONS): number[] {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > HASH_EMBED_DIMENSIONS) {
    throw new GatewayError('VALIDATION_4005', `dimensions must be an integer from 1 to ${HASH_EMBED_DIMENSIONS} for local-embed.`, {
      field: 'dimensions',
    });
  }
  // One scratch vector, zeroed per call: embedding is synchronous, so no two calls share it at once.
  const vector = scratch.fill(0);
  const features = extractFeatures(text);
  for (const [key, count] of features) {
    const hash = featureHash(key);
    const index = fmix32(hash) % HASH_EMBED_DIMENSIONS;
    // The sign comes from an independent mix of the hash, not from the bits that chose the index.
    const sign = fmix32(hash ^ 0x9e3779b9) & 1 ? -1 : 1;
    vector[index]! += sign * weightOf(key) * (1 + Math.log(count));
  }
  return normalise(vector, dimensions);
}

const scratch = new Float64Array(HASH_EMBED_DIMENSIONS);

/** Characters outside the BMP take two UTF-16 units; trigrams count characters. */
const SURROGATE = /[\ud800-\udfff]/;
const WORD_PREFIX = 'w:';
const TRIGRAM_PREFIX = 't:';
/** FNV-1a's state after the bytes of TRIGRAM_PREFIX and of WORD_PREFIX. */
const TRIGRAM_SEED = fnv1a32Continue(0x811c9dc5, TRIGRAM_PREFIX);
const WORD_SEED = fnv1a32Continue(0x811c9dc5, WORD_PREFIX);
/** Trigram keys from here up have a unit at or past 0x80; below it, three 7-bit units (a small integer). */
const WIDE_TRIGRAMS = 0x200000;

/**
 * A feature's key in the count map, one per feature as its prefixed text would be ("w:" + word,
 * "t:" + trigram, the empty feature), without making that text (issue 16: two strings per
 * feature were most of a query embedding's allocations):
 * - a trigram of three BMP units that are not surrogates: a number (its units packed; below
 *   WIDE_TRIGRAMS when all three are ASCII), whichever path made it;
 * - any other trigram: its prefixed text "t:…";
 * - a word: the word itself (a word is letters, marks and digits, so never "t:…" nor the empty feature);
 * - EMPTY_FEATURE.
 */
type FeatureKey = number | string;

/** A feature's weight: trigrams TRIGRAM_WEIGHT, words and the empty feature WORD_WEIGHT. */
function weightOf(key: FeatureKey): number {
  return typeof key === 'number' || key.startsWith(TRIGRAM_PREFIX) ? TRIGRAM_WEIGHT : WORD_WEIGHT;
}

/** fnv1a32 of the feature's prefixed text, as embedText hashed it when the text was made. */
function featureHash(key: FeatureKey): number {
  if (typeof key === 'number') {
    if (key < WIDE_TRIGRAMS) return fnv1a32Units(TRIGRAM_SEED, key >> 14, (key >> 7) & 0x7f, key & 0x7f);
    const packed = key - WIDE_TRIGRAMS;
    return fnv1a32Units(TRIGRAM_SEED, Math.floor(packed / 0x100000000), Math.floor(packed / 0x10000) & 0xffff, packed % 0x10000);
  }
  if (key === EMPTY_FEATURE || key.startsWith(TRIGRAM_PREFIX)) return fnv1a32(key);
  return fnv1a32Continue(WORD_SEED, key) >>> 0;
}

function isPlainUnit(code: number): boolean {
  return code < 0xd800 || code > 0xdfff;
}

/** The number key of a trigram of three plain BMP units. */
function trigramKey(first: number, second: number, third: number): number {
  if ((first | second | third) < 0x80) return (first << 14) | (second << 7) | third;
  return WIDE_TRIGRAMS + first * 0x100000000 + second * 0x10000 + third;
}

/**
 * Each feature's key and count, in first-seen order: the vector's sums are made in that order.
 * Counts only, the weight read off the key: an object per feature was a third of a query
 * embedding's allocations (issue 16).
 */
function extractFeatures(text: string): Map<FeatureKey, number> {
  const features = new Map<FeatureKey, number>();
  const add = (key: FeatureKey): void => {
    features.set(key, (features.get(key) ?? 0) + 1);
  };
  for (const word of wordTokens(text)) {
    add(word);
    if (!SURROGATE.test(word)) {
      // The trigrams of "<word>", read off the word's units (the padding as its own units).
      const last = word.length + 1;
      for (let start = 0; start + 3 <= last + 1; start++) {
        const first = start === 0 ? 0x3c : word.charCodeAt(start - 1);
        const second = start + 1 === last ? 0x3e : word.charCodeAt(start);
        const third = start + 2 === last ? 0x3e : word.charCodeAt(start + 1);
        add(trigramKey(first, second, third));
      }
      continue;
    }
    const letters = Array.from(`<${word}>`);
    for (let start = 0; start + 3 <= letters.length; start++) {
      const [first, second, third] = [letters[start]!, letters[start + 1]!, letters[start + 2]!];
      const plain = first.length === 1 && second.length === 1 && third.length === 1 && isPlainUnit(first.charCodeAt(0)) && isPlainUnit(second.charCodeAt(0)) && isPlainUnit(third.charCodeAt(0));
      add(plain ? trigramKey(first.charCodeAt(0), second.charCodeAt(0), third.charCodeAt(0)) : TRIGRAM_PREFIX + first + second + third);
    }
  }
  if (features.size === 0) add(EMPTY_FEATURE);
  return features;
}

/** The first `dimensions` components at unit length (indexed loops: a query embedding is on the search path). */
function normalise(vector: Float64Array, dimensions: number): number[] {
  let squares = 0;
  for (let index = 0; index < dimensions; index += 1) squares += vector[index]! * vector[index]!;
  const norm = Math.sqrt(squares);
  // A truncation can leave only zeros for a very short text; a uniform vector keeps it unit length.
  if (norm === 0) return new Array<number>(dimensions).fill(1 / Math.sqrt(dimensions));
  const result = new Array<number>(dimensions);
  for (let index = 0; index < dimensions; index += 1) result[index] = vector[index]! / norm;
  return result;
}

/**
 * FNV-1a, 32-bit, over the UTF-8 bytes (as TextEncoder writes them: a lone surrogate as U+FFFD).
 * The bytes are produced here rather than by TextEncoder: an encode per feature cost a third of
 * a query embedding (an allocation and a native call for a few bytes).
 */
export function fnv1a32(text: string): number {
  return fnv1a32Continue(0x811c9dc5, text) >>> 0;
}

/** FNV-1a's state after `hash` and then the UTF-8 bytes of `text` (see fnv1a32). */
function fnv1a32Continue(start: number, text: string): number {
  let hash = start;
  const length = text.length;
  for (let index = 0; index < length; index += 1) {
    let code = text.charCodeAt(index);
    if (code < 0x80) {
      hash = Math.imul(hash ^ code, 0x01000193);
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = index + 1 < length ? text.charCodeAt(index + 1) : 0;
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        index += 1;
      } else {
        code = 0xfffd;
      }
    }
    hash = fnv1a32Code(hash, code);
  }
  return hash;
}

/** The bytes of one code point of two or more UTF-8 bytes. */
function fnv1a32Code(start: number, code: number): number {
  let hash = start;
  if (code < 0x800) {
    hash = Math.imul(hash ^ (0xc0 | (code >> 6)), 0x01000193);
  } else if (code < 0x10000) {
    hash = Math.imul(hash ^ (0xe0 | (code >> 12)), 0x01000193);
    hash = Math.imul(hash ^ (0x80 | ((code >> 6) & 0x3f)), 0x01000193);
  } else {
    hash = Math.imul(hash ^ (0xf0 | (code >> 18)), 0x01000193);
    hash = Math.imul(hash ^ (0x80 | ((code >> 12) & 0x3f)), 0x01000193);
    hash = Math.imul(hash ^ (0x80 | ((code >> 6) & 0x3f)), 0x01000193);
  }
  return Math.imul(hash ^ (0x80 | (code & 0x3f)), 0x01000193);
}

/** fnv1a32 of `start` then three BMP units that are not surrogates (a trigram's). */
function fnv1a32Units(start: number, first: number, second: number, third: number): number {
  let hash = start;
  hash = first < 0x80 ? Math.imul(hash ^ first, 0x01000193) : fnv1a32Code(hash, first);
  hash = second < 0x80 ? Math.imul(hash ^ second, 0x01000193) : fnv1a32Code(hash, second);
  hash = third < 0x80 ? Math.imul(hash ^ third, 0x01000193) : fnv1a32Code(hash, third);
  return hash >>> 0;
}

/** MurmurHash3's finaliser: spreads FNV's weak low bits across the word before the modulo. */
export function fmix32(value: number): number {
  let hash = value >>> 0;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
