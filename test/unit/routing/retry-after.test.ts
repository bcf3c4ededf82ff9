import { describe, expect, it } from 'vitest';
import { parseRetryAfterMs, retryAfterHeader } from '../../../src/routing/retry-after.js';

const now = Date.parse('2025-03-01T12:00:00Z');

describe('parseRetryAfterMs', () => {
  it.each<[string | undefined, number | undefined]>([
    ['7', 7_000],
    ['0', 0],
    [' 2 ', 2_000],
    ['0.5', 500],
    ['120', 120_000],
    ['Sat, 01 Mar 2025 12:00:10 GMT', 10_000],
    ['Sat, 01 Mar 2025 11:59:00 GMT', 0],
    [undefined, undefined],
    ['', undefined],
    ['soon', undefined],
    ['-5', undefined],
    ['1e3', undefined],
    ['2025', 2_025_000],
    ['12 seconds', undefined],
  ])('%j → %j ms', (value, expected) => {
    expect(parseRetryAfterMs(value, now)).toBe(expected);
  });
});

describe('retryAfterHeader', () => {
  it.each<[Record<string, string>, string | undefined]>([
    [{ 'retry-after': '3' }, '3'],
    [{ 'Retry-After': '4' }, '4'],
    [{ 'RETRY-AFTER': '5', other: 'x' }, '5'],
    [{}, undefined],
  ])('%j → %j', (headers, expected) => {
    expect(retryAfterHeader(headers)).toBe(expected);
  });
});
