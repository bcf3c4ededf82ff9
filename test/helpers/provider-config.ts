import { providerSchema, type ProviderConfig } from '../../src/config/schema.js';

/** A fully defaulted provider config (through the real schema), with the given changes. */
export function providerConfig(change: Partial<ProviderConfig> = {}): ProviderConfig {
  return { ...providerSchema.parse({ kind: 'openai', base_url: 'https://example.test/v1', location: 'US', pue: 1.2, renewable_percent: 0, carbon_g_per_kwh: 400, water_l_per_kwh: 1.8 }), ...change };
}
