import type { EnergyFigures, ProviderConfig } from '../config/schema.js';
import type { Consumption } from './price.js';

/** The spec's environment_impact object. */
export interface EnvironmentImpact {
  energy_kwh: number;
  carbon_g_co2: number;
  water_liters: number;
  renewable_percent: number;
  pue: number;
  provider_id: string;
  location: string;
}

/** Twelve significant digits: enough for micro-Wh requests, without binary-float noise on the wire. */
function tidy(value: number): number {
  // Zero (a route with no energy figures, e.g. local-embed) is zero at any precision: no string round trip (issue 16).
  if (value === 0) return 0;
  return Number(value.toPrecision(12));
}

/** DESIGN §2: energy = route figures × consumption × provider PUE; carbon and water scale with it. */
export function environmentImpact(consumption: Consumption, figures: EnergyFigures, providerId: string, provider: ProviderConfig): EnvironmentImpact {
  const wattHours =
    (consumption.inputTokens / 1000) * (figures.wh_per_1k_input_tokens ?? 0) +
    (consumption.outputTokens / 1000) * (figures.wh_per_1k_output_tokens ?? 0) +
    consumption.images * (figures.wh_per_image ?? 0) +
    consumption.audioMinutes * (figures.wh_per_audio_minute ?? 0);
  const energyKwh = (wattHours * provider.pue) / 1000;
  return {
    energy_kwh: tidy(energyKwh),
    carbon_g_co2: tidy(energyKwh * provider.carbon_g_per_kwh),
    water_liters: tidy(energyKwh * provider.water_l_per_kwh),
    renewable_percent: provider.renewable_percent,
    pue: provider.pue,
    provider_id: providerId,
    location: provider.location,
  };
}

/** Grams of CO2 per 1k tokens (input + output figures) of a route: the `:eco` ordering key. */
export function carbonPerKiloToken(figures: EnergyFigures, provider: ProviderConfig): number {
  const wattHours = (figures.wh_per_1k_input_tokens ?? 0) + (figures.wh_per_1k_output_tokens ?? 0) + (figures.wh_per_image ?? 0);
  return ((wattHours * provider.pue) / 1000) * provider.carbon_g_per_kwh;
}
