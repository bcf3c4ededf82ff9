import { describe, expect, it } from 'vitest';
import { formatByteRate, formatBytes, formatDuration, formatNumber, formatRate, plural } from '../../../src/cli/format.js';

describe('format for people', () => {
  it.each([
    [0, 'provider', '0 providers'],
    [1, 'provider', '1 provider'],
    [2, 'provider', '2 providers'],
  ])('plural(%d, %s) → %s', (count, noun, text) => {
    expect(plural(count, noun)).toBe(text);
  });
  it('irregular plurals', () => expect(plural(2, 'entry', 'entries')).toBe('2 entries'));

  it.each([
    [24.296675191815854, '24.3'],
    [3, '3'],
    [2.0000000001, '2'],
    [Number.NaN, '-'],
  ])('formatNumber(%d) → %s', (value, text) => {
    expect(formatNumber(value)).toBe(text);
  });

  it.each([
    [24.296675191815854, '24 B/s'],
    [1536, '1.5 KiB/s'],
    [105 * 1024 * 1024, '105 MiB/s'],
  ])('formatByteRate(%d) → %s', (value, text) => {
    expect(formatByteRate(value)).toBe(text);
  });

  it('bytes and rates', () => {
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatRate(12.345, 'rows')).toBe('12.3 rows/s');
    expect(formatRate(null, 'rows')).toBe('- rows/s');
  });

  it.each([
    [59.6, '1m00s'],
    [3599.7, '1h00m'],
    [5, '5s'],
  ])('formatDuration(%d) → %s never shows 60 of a unit', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});
