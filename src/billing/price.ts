import type { Pricing } from '../config/schema.js';
import { Decimal, ZERO, toDecimal } from './money.js';

/** What a call consumed, in the units pricing and energy figures are quoted in. */
export interface Consumption {
  inputTokens: number;
  outputTokens: number;
  /** Subset of inputTokens served from the provider's prompt cache. */
  cachedTokens: number;
  images: number;
  audioMinutes: number;
}

export const NO_CONSUMPTION: Consumption = { inputTokens: 0, outputTokens: 0, cachedTokens: 0, images: 0, audioMinutes: 0 };

const MILLION = new Decimal(1_000_000);

function rate(value: number | undefined): Decimal {
  return value === undefined ? ZERO : toDecimal(value);
}

/** EUR cost of one call under a route's pricing; cached tokens at the cache-read rate (input rate if none). */
export function costEur(consumption: Consumption, pricing: Pricing | undefined): Decimal {
  if (pricing === undefined) return ZERO;
  const cached = Math.min(consumption.cachedTokens, consumption.inputTokens);
  const uncached = consumption.inputTokens - cached;
  const inputRate = rate(pricing.input_cost_per_million_eur);
  const cacheRate = pricing.cache_read_cost_per_million_eur === undefined ? inputRate : toDecimal(pricing.cache_read_cost_per_million_eur);
  return inputRate
    .mul(uncached)
    .plus(cacheRate.mul(cached))
    .plus(rate(pricing.output_cost_per_million_eur).mul(consumption.outputTokens))
    .div(MILLION)
    .plus(rate(pricing.image_cost_per_image_eur).mul(consumption.images))
    .plus(rate(pricing.audio_cost_per_minute_eur).mul(toDecimal(consumption.audioMinutes)));
}
