import { describe, expect, it } from 'vitest';
import { Decimal, ZERO, formatBalance, formatDecimal, parseBalance, toDecimal } from '../../../src/billing/money.js';

describe('toDecimal', () => {
  it.each<{ input: string | number; expected: string }>([
    { input: 0.14, expected: '0.14' },
    { input: 0.1, expected: '0.1' },
    { input: '0.3', expected: '0.3' },
    { input: 1e-7, expected: '1e-7' },
    { input: 123456789.123, expected: '123456789.123' },
    { input: '-2.5', expected: '-2.5' },
  ])('$input → $expected (the decimal the user wrote, not the binary float)', ({ input, expected }) => {
    expect(toDecimal(input).equals(new Decimal(expected))).toBe(true);
  });

  it('keeps a Decimal as is', () => {
    const value = new Decimal('1.5');
    expect(toDecimal(value)).toBe(value);
  });

  it.each<[number, number, string]>([
    [0.1, 0.2, '0.3'],
    [0.7, 0.1, '0.8'],
    [1.1, 2.2, '3.3'],
    [0.14, 0.55, '0.69'],
  ])('%d + %d is exactly %s', (a, b, expected) => {
    expect(formatDecimal(toDecimal(a).plus(toDecimal(b)))).toBe(expected);
  });
});

describe('parseBalance / formatBalance', () => {
  it.each<{ input: string | number; expected: string }>([
    { input: 'unlimited', expected: 'unlimited' },
    { input: '100', expected: '100' },
    { input: 100, expected: '100' },
    { input: '0', expected: '0' },
    { input: '-0.000001', expected: '-0.000001' },
    { input: '12.500', expected: '12.5' },
  ])('$input round-trips as $expected', ({ input, expected }) => {
    expect(formatBalance(parseBalance(input))).toBe(expected);
  });

  it('reads each text as its own value however many texts came before (recent texts are kept, the kept set starts over)', () => {
    for (let round = 0; round < 3; round += 1) {
      for (let cents = 0; cents < 700; cents += 1) {
        const text = `${round}.${String(cents).padStart(3, '0')}`;
        expect(formatBalance(parseBalance(text))).toBe(formatDecimal(new Decimal(text)));
      }
    }
    expect(() => parseBalance('not a number')).toThrow();
    expect(() => parseBalance('not a number')).toThrow();
  });
});

describe('formatDecimal', () => {
  it.each<{ input: string; expected: string }>([
    { input: '0', expected: '0' },
    { input: '-0', expected: '0' },
    { input: '1.50', expected: '1.5' },
    { input: '1e-7', expected: '0.0000001' },
    { input: '1e21', expected: '1000000000000000000000' },
    { input: '0.0000000000004', expected: '0' },
    { input: '0.0000000000005', expected: '0' },
    { input: '0.0000000000015', expected: '0.000000000002' },
    { input: '0.000000000001', expected: '0.000000000001' },
    { input: '0.1234567890125', expected: '0.123456789012' },
    { input: '-3.25', expected: '-3.25' },
  ])('$input → $expected', ({ input, expected }) => {
    expect(formatDecimal(new Decimal(input))).toBe(expected);
  });

  it('ZERO is zero', () => {
    expect(ZERO.isZero()).toBe(true);
  });
});
