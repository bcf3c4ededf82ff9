import type { Config } from '../config/load.js';
import type { ModelConfig, Pricing } from '../config/schema.js';

/** GET /v1/models object, with `_meta` when asked (spec "Model object"). */
export function modelObject(id: string, model: ModelConfig, config: Config, includeMeta: boolean): Record<string, unknown> {
  const base: Record<string, unknown> = { id, object: 'model', created: model.created, owned_by: model.owned_by };
  if (!includeMeta) return base;
  const meta: Record<string, unknown> = {
    type: model.type,
    input_modalities: model.input_modalities,
    output_modalities: model.output_modalities,
    capabilities: model.capabilities,
  };
  if ((model.type === 'chat' || model.type === 'embeddings' || model.type === 'reranker' || model.type === 'guardrail') && model.context_length !== undefined) {
    meta['context_length'] = model.context_length;
  }
  Object.assign(meta, {
    max_output_tokens: model.max_output_tokens,
    reasoning_type: model.reasoning_type,
    reasoning_effort: model.reasoning_effort,
    knowledge_cutoff: model.knowledge_cutoff,
    release_date: model.release_date,
    modelhub_url: model.modelhub_url,
  });
  const pricing = cheapestPricing(model, config);
  if (pricing !== undefined) meta['pricing'] = pricing;
  return { ...base, _meta: meta };
}

const KEYS_BY_TYPE: Record<ModelConfig['type'], Array<keyof Pricing>> = {
  chat: ['input_cost_per_million_eur', 'output_cost_per_million_eur', 'cache_read_cost_per_million_eur'],
  guardrail: ['input_cost_per_million_eur', 'output_cost_per_million_eur'],
  embeddings: ['input_cost_per_million_eur'],
  reranker: ['input_cost_per_million_eur'],
  image: ['image_cost_per_image_eur'],
  audio: ['audio_cost_per_minute_eur'],
};

/** Cheapest rate per key across active routes that have pricing; undefined when none has any. */
export function cheapestPricing(model: ModelConfig, config: Config): Record<string, number | string> | undefined {
  const priced = model.routes.filter((route) => route.pricing !== undefined && config.providers[route.provider]?.enabled === true);
  if (priced.length === 0) return undefined;
  const result: Record<string, number | string> = {};
  for (const key of KEYS_BY_TYPE[model.type]) {
    const values = priced.map((route) => route.pricing?.[key]).filter((value): value is number => value !== undefined);
    if (values.length > 0) result[key] = Math.min(...values);
    else if (key !== 'cache_read_cost_per_million_eur') result[key] = 0;
  }
  result['currency'] = 'EUR';
  return result;
}
