import { describe, expect, it } from 'vitest';
import { embedText, fnv1a32, HASH_EMBED_DIMENSIONS } from '../../../../src/providers/local/hash-embed.js';

/** FNV-1a over TextEncoder's bytes: the definition the stored vectors were made with. */
function referenceFnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193);
  return hash >>> 0;
}

const norm = (vector: number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
const cosine = (left: number[], right: number[]) => left.reduce((sum, value, index) => sum + value * right[index]!, 0) / (norm(left) * norm(right));

describe('embedText', () => {
  it.each(['hello world', '', '!!! ???', 'Ünïcödé 日本語 text', 'a'.repeat(10_000)])('gives a unit vector of 384 numbers (case %#)', (text) => {
    const vector = embedText(text);
    expect(vector).toHaveLength(HASH_EMBED_DIMENSIONS);
    expect(vector.every(Number.isFinite)).toBe(true);
    expect(norm(vector)).toBeCloseTo(1, 10);
  });

  it('is deterministic', () => {
    expect(embedText('The cat sat on the mat')).toEqual(embedText('The cat sat on the mat'));
  });

  it('ignores case and punctuation', () => {
    expect(embedText('Hello, World!')).toEqual(embedText('hello world'));
  });

  it.each([
    { anchor: 'The cat sat on the mat', similar: 'A cat was sitting on the mat', unrelated: 'Quarterly revenue grew by twelve percent' },
    { anchor: 'How do I reset my password?', similar: 'password reset instructions', unrelated: 'The volcano erupted last night' },
    { anchor: 'running shoes for marathon training', similar: 'best shoes for marathon runners', unrelated: 'chocolate cake recipe with berries' },
    { anchor: 'embedding vectors and cosine similarity', similar: 'cosine similarity between embedded vectors', unrelated: 'a quiet walk in the forest' },
  ])('scores "$similar" above "$unrelated" against "$anchor"', ({ anchor, similar, unrelated }) => {
    const reference = embedText(anchor);
    expect(cosine(reference, embedText(similar))).toBeGreaterThan(cosine(reference, embedText(unrelated)) + 0.1);
  });

  it('matches inflected forms through character trigrams', () => {
    const reference = embedText('connection');
    expect(cosine(reference, embedText('connections'))).toBeGreaterThan(cosine(reference, embedText('umbrella')) + 0.3);
  });

  it.each([1, 8, 64, 256, 384])('truncates to %i dimensions and re-normalises', (dimensions) => {
    const full = embedText('dimension truncation keeps a prefix of the vector');
    const truncated = embedText('dimension truncation keeps a prefix of the vector', dimensions);
    expect(truncated).toHaveLength(dimensions);
    expect(norm(truncated)).toBeCloseTo(1, 10);
    // Same direction as the prefix of the full vector (Matryoshka-style).
    const prefix = full.slice(0, dimensions);
    if (norm(prefix) > 0) expect(cosine(truncated, prefix)).toBeCloseTo(1, 10);
  });

  it.each([0, 385, 1.5, -3])('refuses dimensions %s', (dimensions) => {
    expect(() => embedText('x', dimensions)).toThrow(expect.objectContaining({ code: 'VALIDATION_4005' }));
  });

  it('hashes the UTF-8 bytes exactly as TextEncoder writes them (lone surrogates as U+FFFD)', () => {
    const samples = ['', 'w:cat', 't:<ca', 'é', '日本語', '😀', '\ud800', 'a\udc00b', '\udbff\udfff', '\ud83d', 'x\ud83d\ude00\ud800', '\u07ff\u0800\uffff'];
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let sample = 0; sample < 2000; sample += 1) {
      samples.push(Array.from({ length: 1 + Math.floor(random() * 8) }, () => String.fromCharCode(Math.floor(random() * 0x10000))).join(''));
    }
    for (const text of samples) expect(fnv1a32(text), JSON.stringify(text)).toBe(referenceFnv1a32(text));
  });

  it('gives the vectors stores were built with', () => {
    // Weighted sums of vectors made before the hash was computed by hand (stored embeddings must not drift).
    const digest = (vector: number[]) => vector.reduce((sum, value, index) => sum + value * (index + 1), 0);
    expect(digest(embedText('The cat sat on the mat'))).toBeCloseTo(28.774649507938435, 10);
    expect(digest(embedText('Ünïcödé 日本語 text 😀 \ud800 x\udc00y'))).toBeCloseTo(-145.5, 10);
    // Letters outside the BMP (two UTF-16 units each) in words: trigrams count characters.
    expect(digest(embedText('𝐀𝐁𝐂 日本語 café 𠀀𠀁x naïve'))).toBeCloseTo(-0.4866642633922851, 10);
    expect(digest(embedText('ab', 7))).toBeCloseTo(10.583005244258361, 10);
  });
});
