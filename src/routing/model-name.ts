import type { Flavor } from '../config/schema.js';
import { GatewayError } from '../errors/gateway-error.js';
import { didYouMean } from '../util/did-you-mean.js';

export const FLAVORS: readonly Flavor[] = ['eco', 'free', 'speed', 'batch'];

export interface ModelName {
  /** Catalog id without the suffix. */
  id: string;
  flavor: Flavor | null;
  /** Exactly what the client sent. */
  requested: string;
}

/** Splits "model:flavor". An unknown suffix makes the whole name unknown (INFERENCE_3001), per spec. */
export function parseModelName(requested: string): ModelName {
  const colon = requested.lastIndexOf(':');
  if (colon === -1) return { id: requested, flavor: null, requested };
  const suffix = requested.slice(colon + 1);
  if (!(FLAVORS as readonly string[]).includes(suffix)) {
    const flavors = FLAVORS.map((flavor) => `:${flavor}`);
    throw new GatewayError('INFERENCE_3001', `Unknown model "${requested}": "${suffix}" is not a flavor (valid: ${flavors.join(' ')}).${didYouMean(`:${suffix}`, flavors)}`, {
      model: requested,
    });
  }
  return { id: requested.slice(0, colon), flavor: suffix as Flavor, requested };
}
