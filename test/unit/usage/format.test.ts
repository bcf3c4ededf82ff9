import { describe, expect, it } from 'vitest';
import { formatAmount, formatCo2, formatCount, formatKwh, formatMs, formatSi } from '../../../src/usage/format.js';
import { percentile } from '../../../src/usage/percentile.js';
import { bar, sparkline } from '../../../src/usage/sparkline.js';

describe('usage formatting', () => {
  it.each<[string | number, string]>([
    ['0', '0'],
    ['0.000012345', '0.0000123'],
    ['1e-9', '0.000000001'],
    ['0.5', '0.5'],
    ['12.3456', '12.3'],
    ['1234.5678', '1234.57'],
    [3, '3'],
  ])('formatAmount(%s) = %s', (value, expected) => {
    expect(formatAmount(value)).toBe(expected);
  });

  it.each<[number, string, string]>([
    [0, 'Wh', '0 Wh'],
    [0.0005, 'Wh', '500 µWh'],
    [1.5, 'Wh', '1.5 Wh'],
    [2500, 'Wh', '2.5 kWh'],
    [1e-12, 'g', '0.001 ng'],
  ])('formatSi(%d, %s) = %s', (value, unit, expected) => {
    expect(formatSi(value, unit)).toBe(expected);
  });

  it('kWh in watt-hours, CO2 in grams, counts with separators, ms rounded', () => {
    expect(formatKwh(0.002)).toBe('2 Wh');
    expect(formatCo2(0.0123)).toBe('12.3 mg');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatMs(123.4)).toBe('123');
    expect(formatMs(1.234)).toBe('1.2');
  });

  it.each<[number[], number, number]>([
    [[], 50, 0],
    [[7], 99, 7],
    [[1, 2, 3, 4], 50, 2],
    [[1, 2, 3, 4], 99, 4],
    [[1, 2, 3, 4], 0, 1],
  ])('percentile(%j, %d) = %d', (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });

  it.each<[number[], string]>([
    [[], ''],
    [[0, 0], '  '],
    [[0, 1, 8], ' ▂█'],
    [[1, 1000], '▁█'],
    [[5, 5, 5], '███'],
  ])('sparkline(%j) = %j', (values, expected) => {
    expect(sparkline(values)).toBe(expected);
  });

  it.each<[number, number, number, string]>([
    [0, 10, 4, ''],
    [10, 10, 4, '████'],
    [5, 10, 4, '██'],
    [1, 10, 4, '▍'],
  ])('bar(%d, %d, %d) = %j', (value, max, width, expected) => {
    expect(bar(value, max, width)).toBe(expected);
  });
});
