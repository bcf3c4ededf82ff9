import { describe, expect, it } from 'vitest';
import { Decimal, formatDecimal } from '../../../src/billing/money.js';
import { NO_CONSUMPTION, costEur, type Consumption } from '../../../src/billing/price.js';
import type { Pricing } from '../../../src/config/schema.js';

const usage = (change: Partial<Consumption>): Consumption => ({ ...NO_CONSUMPTION, ...change });

describe('costEur', () => {
  it.each<{ name: string; consumption: Consumption; pricing: Pricing | undefined; expected: string }>([
    { name: 'no pricing is free', consumption: usage({ inputTokens: 1000, outputTokens: 1000 }), pricing: undefined, expected: '0' },
    { name: 'empty pricing is free', consumption: usage({ inputTokens: 1000, outputTokens: 1000 }), pricing: {}, expected: '0' },
    { name: 'nothing consumed', consumption: NO_CONSUMPTION, pricing: { input_cost_per_million_eur: 3, output_cost_per_million_eur: 15 }, expected: '0' },
    {
      name: 'input and output tokens',
      consumption: usage({ inputTokens: 1_000_000, outputTokens: 1_000_000 }),
      pricing: { input_cost_per_million_eur: 0.14, output_cost_per_million_eur: 0.55 },
      expected: '0.69',
    },
    {
      name: 'small call, exact decimals',
      consumption: usage({ inputTokens: 12, outputTokens: 7 }),
      pricing: { input_cost_per_million_eur: 0.14, output_cost_per_million_eur: 0.55 },
      // 12*0.14 + 7*0.55 = 1.68 + 3.85 = 5.53 per million
      expected: '0.00000553',
    },
    {
      name: '0.1 + 0.2 style rates',
      consumption: usage({ inputTokens: 1_000_000, outputTokens: 1_000_000 }),
      pricing: { input_cost_per_million_eur: 0.1, output_cost_per_million_eur: 0.2 },
      expected: '0.3',
    },
    {
      name: 'repeated small amounts stay exact',
      consumption: usage({ inputTokens: 3, outputTokens: 0 }),
      pricing: { input_cost_per_million_eur: 0.1 },
      expected: '0.0000003',
    },
    {
      name: 'cached tokens at the cache-read rate',
      consumption: usage({ inputTokens: 1_000_000, cachedTokens: 400_000, outputTokens: 0 }),
      pricing: { input_cost_per_million_eur: 0.14, output_cost_per_million_eur: 0.55, cache_read_cost_per_million_eur: 0.07 },
      // 600k × 0.14 + 400k × 0.07 = 0.084 + 0.028
      expected: '0.112',
    },
    {
      name: 'cache rate missing falls back to the input rate',
      consumption: usage({ inputTokens: 1_000_000, cachedTokens: 400_000 }),
      pricing: { input_cost_per_million_eur: 0.14, output_cost_per_million_eur: 0.55 },
      expected: '0.14',
    },
    {
      name: 'cache rate of zero is honoured (not treated as missing)',
      consumption: usage({ inputTokens: 1_000_000, cachedTokens: 1_000_000 }),
      pricing: { input_cost_per_million_eur: 0.14, cache_read_cost_per_million_eur: 0 },
      expected: '0',
    },
    {
      name: 'cached tokens above input tokens are capped',
      consumption: usage({ inputTokens: 100, cachedTokens: 500 }),
      pricing: { input_cost_per_million_eur: 2, cache_read_cost_per_million_eur: 1 },
      expected: '0.0001',
    },
    {
      name: 'images',
      consumption: usage({ images: 3 }),
      pricing: { image_cost_per_image_eur: 0.04 },
      expected: '0.12',
    },
    {
      name: 'audio minutes (fractional)',
      consumption: usage({ audioMinutes: 2.5 }),
      pricing: { audio_cost_per_minute_eur: 0.006 },
      expected: '0.015',
    },
    {
      name: 'audio 0.1 + 0.2 minutes style',
      consumption: usage({ audioMinutes: 0.3 }),
      pricing: { audio_cost_per_minute_eur: 0.1 },
      expected: '0.03',
    },
    {
      name: 'every component together',
      consumption: usage({ inputTokens: 2_000_000, cachedTokens: 1_000_000, outputTokens: 500_000, images: 1, audioMinutes: 1 }),
      pricing: {
        input_cost_per_million_eur: 1,
        cache_read_cost_per_million_eur: 0.5,
        output_cost_per_million_eur: 4,
        image_cost_per_image_eur: 0.02,
        audio_cost_per_minute_eur: 0.01,
      },
      // 1 + 0.5 + 2 + 0.02 + 0.01
      expected: '3.53',
    },
  ])('$name → $expected', ({ consumption, pricing, expected }) => {
    const cost = costEur(consumption, pricing);
    expect(cost.toFixed()).toBe(expected);
    expect(formatDecimal(cost)).toBe(expected);
  });

  it('sums many calls exactly', () => {
    const pricing: Pricing = { input_cost_per_million_eur: 0.1, output_cost_per_million_eur: 0.2 };
    let total = costEur(NO_CONSUMPTION, pricing);
    for (let index = 0; index < 1000; index += 1) total = total.plus(costEur(usage({ inputTokens: 1, outputTokens: 1 }), pricing));
    expect(total.toFixed()).toBe('0.0003');
  });
});

describe('costEur and formatDecimal against plain decimal arithmetic', () => {
  // The hot path multiplies by 10^-6 and skips rounding amounts with 12 places or fewer (issue 18
  // item 3); the answers must be the digits of the textbook computation: sum, divide, round.
  it('give the same digits over seeded consumptions and rates', () => {
    let state = 7;
    const random = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
    const rates = [0, 0.14, 0.55, 1e-9, 123.456789, 3, 0.000001, 15, 75, 0.1234567891234, 2.5e-7];
    for (let round = 0; round < 2000; round += 1) {
      const inputTokens = Math.floor(random() ** 3 * 2_000_000);
      const outputTokens = Math.floor(random() ** 3 * 1_000_000);
      const input = rates[Math.floor(random() * rates.length)]!;
      const output = rates[Math.floor(random() * rates.length)]!;
      const textbook = new Decimal(String(input)).mul(inputTokens).plus(new Decimal(String(output)).mul(outputTokens)).div(1_000_000);
      const cost = costEur(usage({ inputTokens, outputTokens }), { input_cost_per_million_eur: input, output_cost_per_million_eur: output });
      expect(cost.toFixed()).toBe(textbook.toFixed());
      const rounded = (value: Decimal) => (value.isZero() ? '0' : value.toDecimalPlaces(12, Decimal.ROUND_HALF_EVEN).toFixed());
      expect(formatDecimal(cost)).toBe(rounded(textbook));
      expect(formatDecimal(cost.mul('0.3333'))).toBe(rounded(textbook.mul('0.3333')));
    }
  });
});
