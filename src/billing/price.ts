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

/** Exact: multiplying by 10^-6 gives the same digits as dividing by a million, without decimal.js's long division. */
const ONE_MILLIONTH = new Decimal('1e-6');

/** `sum + term`, where an absent sum is the term itself (saves a decimal addition to zero per term). */
function plus(sum: Decimal | undefined, term: Decimal): Decimal {
  return sum === undefined ? term : sum.plus(term);
}

/** EUR cost of one call under a route's pricing; cached tokens at the cache-read rate (input rate if none). */
export function costEur(consumption: Consumption, pricing: Pricing | undefined): Decimal {
  if (pricing === undefined) return ZERO;
  const cached = Math.min(consumption.cachedTokens, consumption.inputTokens);
  const uncached = consumption.inputTokens - cached;
  // Sum only the terms that apply: most calls use two of the six (decimal arithmetic is not free).
  let perMillion: Decimal | undefined;
  if (uncached > 0 && pricing.input_cost_per_million_eur !== undefined) perMillion = toDecimal(pricing.input_cost_per_million_eur).mul(uncached);
  if (cached > 0) {
    const cacheRate = pricing.cache_read_cost_per_million_eur ?? pricing.input_cost_per_million_eur;
    if (cacheRate !== undefined) perMillion = plus(perMillion, toDecimal(cacheRate).mul(cached));
  }
  if (consumption.outputTokens > 0 && pricing.output_cost_per_million_eur !== undefined) {
    perMillion = plus(perMillion, toDecimal(pricing.output_cost_per_million_eur).mul(consumption.outputTokens));
  }
  let total = perMillion === undefined ? ZERO : perMillion.isZero() ? perMillion : perMillion.mul(ONE_MILLIONTH);
  if (consumption.images > 0 && pricing.image_cost_per_image_eur !== undefined) total = total.plus(toDecimal(pricing.image_cost_per_image_eur).mul(consumption.images));
  if (consumption.audioMinutes > 0 && pricing.audio_cost_per_minute_eur !== undefined) {
    total = total.plus(toDecimal(pricing.audio_cost_per_minute_eur).mul(toDecimal(consumption.audioMinutes)));
  }
  return total;
}
