import { describe, expect, it } from 'vitest';
import { carbonPerKiloToken, environmentImpact } from '../../../src/billing/energy.js';
import { NO_CONSUMPTION, type Consumption } from '../../../src/billing/price.js';
import type { EnergyFigures, ProviderConfig } from '../../../src/config/schema.js';
import { providerConfig } from '../../helpers/provider-config.js';

function provider(change: Partial<ProviderConfig> = {}): ProviderConfig {
  return providerConfig({ location: 'US', pue: 1.2, renewable_percent: 40, carbon_g_per_kwh: 380, water_l_per_kwh: 1.8, ...change });
}

const usage = (change: Partial<Consumption>): Consumption => ({ ...NO_CONSUMPTION, ...change });

describe('environmentImpact', () => {
  it.each<{ name: string; consumption: Consumption; figures: EnergyFigures; provider: ProviderConfig; kwh: number; carbon: number; water: number }>([
    {
      name: 'tokens with the DESIGN example figures',
      consumption: usage({ inputTokens: 1000, outputTokens: 1000 }),
      figures: { wh_per_1k_input_tokens: 0.02, wh_per_1k_output_tokens: 0.2 },
      provider: provider(),
      // (0.02 + 0.2) Wh × 1.2 / 1000 = 0.000264 kWh
      kwh: 0.000264,
      carbon: 0.10032,
      water: 0.0004752,
    },
    {
      name: 'PUE of 1',
      consumption: usage({ inputTokens: 500, outputTokens: 2000 }),
      figures: { wh_per_1k_input_tokens: 0.1, wh_per_1k_output_tokens: 0.5 },
      provider: provider({ pue: 1, carbon_g_per_kwh: 100, water_l_per_kwh: 2 }),
      // 0.05 + 1.0 = 1.05 Wh → 0.00105 kWh
      kwh: 0.00105,
      carbon: 0.105,
      water: 0.0021,
    },
    {
      name: 'images',
      consumption: usage({ images: 2 }),
      figures: { wh_per_image: 3 },
      provider: provider({ pue: 1.5, carbon_g_per_kwh: 200, water_l_per_kwh: 1 }),
      // 6 Wh × 1.5 = 9 Wh = 0.009 kWh
      kwh: 0.009,
      carbon: 1.8,
      water: 0.009,
    },
    {
      name: 'audio minutes',
      consumption: usage({ audioMinutes: 1.5 }),
      figures: { wh_per_audio_minute: 2 },
      provider: provider({ pue: 1, carbon_g_per_kwh: 500, water_l_per_kwh: 0 }),
      kwh: 0.003,
      carbon: 1.5,
      water: 0,
    },
    {
      name: 'no energy figures',
      consumption: usage({ inputTokens: 1000, outputTokens: 1000 }),
      figures: {},
      provider: provider(),
      kwh: 0,
      carbon: 0,
      water: 0,
    },
    {
      name: 'figures for another unit do not count',
      consumption: usage({ inputTokens: 1000 }),
      figures: { wh_per_image: 5, wh_per_audio_minute: 5 },
      provider: provider(),
      kwh: 0,
      carbon: 0,
      water: 0,
    },
  ])('$name', ({ consumption, figures, provider: config, kwh, carbon, water }) => {
    const impact = environmentImpact(consumption, figures, 'openai', config);
    expect(impact.energy_kwh).toBeCloseTo(kwh, 15);
    expect(impact.carbon_g_co2).toBeCloseTo(carbon, 12);
    expect(impact.water_liters).toBeCloseTo(water, 12);
    expect(impact).toMatchObject({ renewable_percent: config.renewable_percent, pue: config.pue, provider_id: 'openai', location: config.location });
  });

  it('renders without binary-float noise (12 significant digits)', () => {
    const impact = environmentImpact(usage({ inputTokens: 1000, outputTokens: 1000 }), { wh_per_1k_input_tokens: 0.1, wh_per_1k_output_tokens: 0.2 }, 'p', provider({ pue: 1, carbon_g_per_kwh: 1000, water_l_per_kwh: 1 }));
    // 0.1 + 0.2 = 0.30000000000000004 in binary floats
    expect(impact.energy_kwh).toBe(0.0003);
    expect(impact.carbon_g_co2).toBe(0.3);
    expect(impact.water_liters).toBe(0.0003);
  });

  it('has exactly the spec fields', () => {
    expect(Object.keys(environmentImpact(NO_CONSUMPTION, {}, 'local', provider())).sort()).toEqual(
      ['carbon_g_co2', 'energy_kwh', 'location', 'provider_id', 'pue', 'renewable_percent', 'water_liters'].sort(),
    );
  });
});

describe('carbonPerKiloToken', () => {
  it.each<{ name: string; figures: EnergyFigures; provider: ProviderConfig; expected: number }>([
    { name: 'input + output figures', figures: { wh_per_1k_input_tokens: 0.02, wh_per_1k_output_tokens: 0.2 }, provider: provider(), expected: (0.22 * 1.2 * 380) / 1000 },
    { name: 'zero-carbon grid', figures: { wh_per_1k_input_tokens: 1, wh_per_1k_output_tokens: 1 }, provider: provider({ carbon_g_per_kwh: 0 }), expected: 0 },
    { name: 'no figures', figures: {}, provider: provider(), expected: 0 },
    { name: 'higher pue costs more', figures: { wh_per_1k_input_tokens: 1 }, provider: provider({ pue: 2, carbon_g_per_kwh: 100 }), expected: 0.2 },
  ])('$name', ({ figures, provider: config, expected }) => {
    expect(carbonPerKiloToken(figures, config)).toBeCloseTo(expected, 12);
  });
});
