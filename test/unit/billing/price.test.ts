import { describe, expect, it } from 'vitest';
import { formatDecimal } from '../../../src/billing/money.js';
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
