import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nonzeroColumns, VectorCopy } from '../../../src/vector-stores/vector-copy.js';

function unit(vector: readonly number[]): Float32Array {
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0)) || 1;
  return Float32Array.from(vector, (value) => value / norm);
}

function exactCosine(left: readonly number[], right: readonly number[]): number {
  const a = unit(left);
  const b = unit(right);
  return a.reduce((sum, value, index) => sum + value * b[index]!, 0);
}

describe('VectorCopy', () => {
  it('gives the cosine of a unit query with a stored vector within 2e-3 (int8 rounding)', () => {
    const component = fc.double({ min: -1, max: 1, noNaN: true });
    fc.assert(
      fc.property(fc.array(component, { minLength: 384, maxLength: 384 }), fc.array(component, { minLength: 384, maxLength: 384 }), fc.nat(5000), (stored, query, label) => {
        fc.pre(stored.some((value) => value !== 0) && query.some((value) => value !== 0));
        const copy = new VectorCopy(384);
        copy.set(label, stored);
        expect(copy.has(label)).toBe(true);
        expect(Math.abs(copy.cosine(unit(query), label)! - exactCosine(stored, query))).toBeLessThan(2e-3);
      }),
      { numRuns: 200 },
    );
  });

  it('scales a stored vector to unit length first (its own cosine is 1) and holds no zero vector', () => {
    const copy = new VectorCopy(4);
    copy.set(3, [3, 0, 4, 0]);
    expect(Math.abs(copy.cosine(unit([3, 0, 4, 0]), 3)! - 1)).toBeLessThan(2e-3);
    copy.set(7, [0, 0, 0, 0]);
    expect(copy.has(7)).toBe(false);
    expect(copy.cosine(unit([1, 0, 0, 0]), 7)).toBeUndefined();
  });

  it('forgets deleted labels, keeps the others while growing, and sums unit vectors for means', () => {
    const copy = new VectorCopy(2);
    copy.set(0, [1, 0]);
    copy.set(5000, [0, 2]);
    copy.delete(0);
    expect(copy.has(0)).toBe(false);
    expect(copy.has(5000)).toBe(true);
    expect(copy.cosine(unit([0, 1]), 5000)).toBeCloseTo(1, 4);
    const sum = new Float32Array(2);
    expect(copy.addTo(sum, 5000, 0.5)).toBe(true);
    expect(copy.addTo(sum, 0, 0.5)).toBe(false);
    expect(sum[0]).toBeCloseTo(0, 6);
    expect(sum[1]).toBeCloseTo(0.5, 4);
  });
});

describe('cosines of a sparse query (local-embed: a few dozen nonzero columns of 384)', () => {
  it('summed over the nonzero columns only, give the same bits as over every column', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 64, maxLength: 64 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 63 }), fc.float({ min: -1, max: 1, noNaN: true })), { maxLength: 20 }),
        (rows, entries) => {
          const copy = new VectorCopy(64);
          rows.forEach((row, label) => copy.set(label, row));
          const query = new Float32Array(64);
          for (const [column, value] of entries) query[column] = value;
          const unitQuery = unit([...query]);
          const columns = nonzeroColumns(unitQuery);
          if (columns === null) return;
          expect([...columns]).toEqual([...unitQuery.keys()].filter((column) => unitQuery[column] !== 0));
          rows.forEach((_, label) => expect(Object.is(copy.cosine(unitQuery, label, columns), copy.cosine(unitQuery, label))).toBe(true));
        },
      ),
    );
  });

  it('a dense query keeps the plain loop', () => {
    expect(nonzeroColumns(Float32Array.from({ length: 8 }, (_, index) => index + 1))).toBeNull();
    expect([...nonzeroColumns(Float32Array.from([0, 0.5, 0, 0, 0, 0, -0.5, 0]))!]).toEqual([1, 6]);
  });
});
