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
  for (const [feature, count] of features) {
    const hash = fnv1a32(feature);
    const index = fmix32(hash) % HASH_EMBED_DIMENSIONS;
    // The sign comes from an independent mix of the hash, not from the bits that chose the index.
    const sign = fmix32(hash ^ 0x9e3779b9) & 1 ? -1 : 1;
    vector[index]! += sign * weightOf(feature) * (1 + Math.log(count));
  }
  return normalise(vector, dimensions);
}

const scratch = new Float64Array(HASH_EMBED_DIMENSIONS);

/** Characters outside the BMP take two UTF-16 units; trigrams count characters. */
const SURROGATE = /[\ud800-\udfff]/;
const WORD_PREFIX = 'w:';
const TRIGRAM_PREFIX = 't:';
/** 't', the first unit of TRIGRAM_PREFIX. */
const TRIGRAM_MARK = 0x74;

/** A feature's weight, told by its prefix (words and the empty feature weigh WORD_WEIGHT). */
function weightOf(feature: string): number {
  return feature.charCodeAt(0) === TRIGRAM_MARK ? TRIGRAM_WEIGHT : WORD_WEIGHT;
}

/**
 * Each feature (prefixed, so a word and a same-spelled trigram never share a key) and its count,
 * in first-seen order: the vector's sums are made in that order. Counts only, the weight read off
 * the prefix: an object per feature was a third of a query embedding's allocations (issue 16).
 */
function extractFeatures(text: string): Map<string, number> {
  const features = new Map<string, number>();
  const add = (feature: string): void => {
    features.set(feature, (features.get(feature) ?? 0) + 1);
  };
  for (const word of wordTokens(text)) {
    // Prefixes keep a word and a same-spelled trigram ("cat" vs "<ca") from sharing a bucket by design.
    add(WORD_PREFIX + word);
    const padded = `<${word}>`;
    if (!SURROGATE.test(padded)) {
      // One UTF-16 unit per character: a trigram is a substring (no array of letters per word).
      for (let start = 0; start + 3 <= padded.length; start++) add(TRIGRAM_PREFIX + padded.substring(start, start + 3));
      continue;
    }
    const letters = Array.from(padded);
    for (let start = 0; start + 3 <= letters.length; start++) add(TRIGRAM_PREFIX + letters.slice(start, start + 3).join(''));
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
  let hash = 0x811c9dc5;
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
    hash = Math.imul(hash ^ (0x80 | (code & 0x3f)), 0x01000193);
  }
  return hash >>> 0;
}

/** MurmurHash3's finaliser: spreads FNV's weak low bits across the word before the modulo. */
function fmix32(value: number): number {
  let hash = value >>> 0;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
