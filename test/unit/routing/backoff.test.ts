import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, backoffCeilingMs, backoffDelayMs, type BackoffPolicy } from '../../../src/util/backoff.js';
import { seededRandom } from '../../helpers/fake-upstream.js';

// util/backoff.ts is tested here, next to its only user (routing/fallback).

const fixed = (value: number): BackoffPolicy => ({ ...DEFAULT_BACKOFF, random: () => value });

describe('backoff: bounded exponential with full jitter', () => {
  it('defaults to base 100 ms, cap 2 s', () => {
    expect(DEFAULT_BACKOFF).toMatchObject({ baseMs: 100, capMs: 2_000 });
  });

  it.each<[number, number]>([
    [0, 100],
    [1, 200],
    [2, 400],
    [3, 800],
    [4, 1_600],
    [5, 2_000],
    [6, 2_000],
    [40, 2_000],
    [10_000, 2_000],
    [-1, 100],
  ])('retry %i may wait up to %i ms', (retryIndex, ceiling) => {
    expect(backoffCeilingMs(retryIndex)).toBe(ceiling);
    expect(backoffDelayMs(retryIndex, fixed(0))).toBe(0);
    expect(backoffDelayMs(retryIndex, fixed(0.5))).toBe(ceiling / 2);
    expect(backoffDelayMs(retryIndex, fixed(0.999_999))).toBeLessThan(ceiling);
  });

  it.each<[string, number]>([
    ['exactly 1', 1],
    ['above 1', 7],
    ['negative', -3],
  ])('a random source returning %s stays within [0, ceiling]', (_name, value) => {
    const delay = backoffDelayMs(3, fixed(value));
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThanOrEqual(800);
  });

  it('every delay stays within its bounds (seeded sweep)', () => {
    const policy = { ...DEFAULT_BACKOFF, random: seededRandom(42) };
    for (let round = 0; round < 2_000; round += 1) {
      const retryIndex = round % 8;
      const delay = backoffDelayMs(retryIndex, policy);
      expect(Number.isInteger(delay)).toBe(true);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(backoffCeilingMs(retryIndex));
    }
  });

  it('is deterministic for a given random source, and actually jittered', () => {
    const sequence = (seed: number) => {
      const policy = { ...DEFAULT_BACKOFF, random: seededRandom(seed) };
      return Array.from({ length: 10 }, (_, index) => backoffDelayMs(index, policy));
    };
    expect(sequence(7)).toEqual(sequence(7));
    expect(sequence(7)).not.toEqual(sequence(8));
    expect(new Set(sequence(7).slice(5)).size).toBeGreaterThan(1);
  });

  it('honours a custom base and cap', () => {
    const policy = { baseMs: 10, capMs: 35, random: () => 0.5 };
    expect([0, 1, 2, 3].map((index) => backoffCeilingMs(index, policy))).toEqual([10, 20, 35, 35]);
    expect(backoffDelayMs(2, policy)).toBe(17);
  });
});
