import { describe, expect, it } from 'vitest';
import { embedText, HASH_EMBED_DIMENSIONS } from '../../../../src/providers/local/hash-embed.js';

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
});
