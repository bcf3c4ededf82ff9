import { describe, expect, it } from 'vitest';
import { isoTime } from '../../../src/util/iso-time.js';

describe('isoTime', () => {
  it('is toISOString for every kind of time value, in any order', () => {
    const values = [
      0, 1, 9, 10, 99, 100, 999, 1000, 1001, 1795141620391, 1795141620391.7, 1795141620999, 1795141621000, 1795141620000, -1, -999, -1000, -1001, -62198755200001,
      253402300799999, 253402300800000, 8.64e15, -8.64e15, 951782400000, 1e12 + 0.5,
    ];
    for (let round = 0; round < 2; round += 1) {
      for (const value of round === 0 ? values : [...values].reverse()) expect(isoTime(value)).toBe(new Date(value).toISOString());
    }
    // Many values within one second and across its edge, as a busy log writes them.
    for (let value = 1795141620900; value < 1795141621100; value += 7) expect(isoTime(value)).toBe(new Date(value).toISOString());
  });

  it('throws like toISOString on values no Date can hold', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, 8.64e15 + 1]) expect(() => isoTime(value)).toThrow(RangeError);
  });
});
