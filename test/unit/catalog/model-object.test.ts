import { describe, expect, it } from 'vitest';
import { cheapestPricing, modelObject } from '../../../src/catalog/model-object.js';
import { buildConfig } from '../../../src/config/load.js';

const config = buildConfig(
  {
    providers: {
      a: { kind: 'openai', base_url: 'https://a.test/v1' },
      b: { kind: 'openai', base_url: 'https://b.test/v1' },
      off: { kind: 'openai', base_url: 'https://off.test/v1', enabled: false },
    },
    models: {
      chat: {
        type: 'chat',
        owned_by: 'openai',
        created: 1721172741,
        context_length: 128000,
        max_output_tokens: 16384,
        input_modalities: ['text', 'image'],
        capabilities: { streaming: true, vision: true },
        knowledge_cutoff: '2023-10',
        release_date: '2024-07-18',
        routes: [
          { provider: 'a', upstream_model: 'x', pricing: { input_cost_per_million_eur: 0.2, output_cost_per_million_eur: 0.5, cache_read_cost_per_million_eur: 0.1 } },
          { provider: 'b', upstream_model: 'x', pricing: { input_cost_per_million_eur: 0.14, output_cost_per_million_eur: 0.6 } },
          { provider: 'off', upstream_model: 'x', pricing: { input_cost_per_million_eur: 0.01, output_cost_per_million_eur: 0.01, cache_read_cost_per_million_eur: 0.001 } },
        ],
      },
      'chat-no-cache': { type: 'chat', routes: [{ provider: 'a', upstream_model: 'x', pricing: { input_cost_per_million_eur: 1, output_cost_per_million_eur: 2 } }] },
      'chat-unpriced': { type: 'chat', context_length: 4096, routes: [{ provider: 'a', upstream_model: 'x' }] },
      'chat-only-disabled-priced': { type: 'chat', routes: [{ provider: 'a', upstream_model: 'x' }, { provider: 'off', upstream_model: 'x', pricing: { input_cost_per_million_eur: 1 } }] },
      embed: { type: 'embeddings', context_length: 8192, routes: [{ provider: 'a', upstream_model: 'e', pricing: { input_cost_per_million_eur: 0.02, output_cost_per_million_eur: 9 } }] },
      image: { type: 'image', context_length: 77, routes: [{ provider: 'a', upstream_model: 'i', pricing: { image_cost_per_image_eur: 0.04 } }, { provider: 'b', upstream_model: 'i', pricing: { image_cost_per_image_eur: 0.03 } }] },
      audio: { type: 'audio', context_length: 1000, routes: [{ provider: 'a', upstream_model: 'w', pricing: { audio_cost_per_minute_eur: 0.006 } }] },
      guard: { type: 'guardrail', context_length: 1000, routes: [{ provider: 'a', upstream_model: 'g', pricing: { input_cost_per_million_eur: 0.1 } }] },
    },
  },
  null,
  {},
);

const meta = (id: string) => modelObject(id, config.models[id]!, config, true)['_meta'] as Record<string, unknown>;

describe('modelObject', () => {
  it('without meta has exactly id, object, created, owned_by', () => {
    expect(modelObject('chat', config.models['chat']!, config, false)).toEqual({ id: 'chat', object: 'model', created: 1721172741, owned_by: 'openai' });
  });

  it('with meta carries every spec field', () => {
    const object = modelObject('chat', config.models['chat']!, config, true);
    expect(object).toMatchObject({ id: 'chat', object: 'model', created: 1721172741, owned_by: 'openai' });
    expect(meta('chat')).toEqual({
      type: 'chat',
      input_modalities: ['text', 'image'],
      output_modalities: ['text'],
      capabilities: { streaming: true, vision: true },
      context_length: 128000,
      max_output_tokens: 16384,
      reasoning_type: 'non_reasoning',
      reasoning_effort: null,
      knowledge_cutoff: '2023-10',
      release_date: '2024-07-18',
      modelhub_url: null,
      pricing: { input_cost_per_million_eur: 0.14, output_cost_per_million_eur: 0.5, cache_read_cost_per_million_eur: 0.1, currency: 'EUR' },
    });
  });

  it.each<{ id: string; hasContextLength: boolean }>([
    { id: 'chat', hasContextLength: true },
    { id: 'embed', hasContextLength: true },
    { id: 'guard', hasContextLength: true },
    { id: 'image', hasContextLength: false },
    { id: 'audio', hasContextLength: false },
    { id: 'local-image', hasContextLength: false },
    { id: 'local-echo', hasContextLength: true },
  ])('$id: context_length present = $hasContextLength', ({ id, hasContextLength }) => {
    expect('context_length' in meta(id)).toBe(hasContextLength);
  });
});

describe('pricing in _meta', () => {
  it.each<{ id: string; pricing: Record<string, unknown> | undefined }>([
    // cheapest per key across active routes (the disabled provider's lower prices are ignored)
    { id: 'chat', pricing: { input_cost_per_million_eur: 0.14, output_cost_per_million_eur: 0.5, cache_read_cost_per_million_eur: 0.1, currency: 'EUR' } },
    // cache_read only when some provider supports prompt caching
    { id: 'chat-no-cache', pricing: { input_cost_per_million_eur: 1, output_cost_per_million_eur: 2, currency: 'EUR' } },
    // no route with pricing → absent
    { id: 'chat-unpriced', pricing: undefined },
    { id: 'chat-only-disabled-priced', pricing: undefined },
    { id: 'local-echo', pricing: undefined },
    // keys by model type
    { id: 'embed', pricing: { input_cost_per_million_eur: 0.02, currency: 'EUR' } },
    { id: 'image', pricing: { image_cost_per_image_eur: 0.03, currency: 'EUR' } },
    { id: 'audio', pricing: { audio_cost_per_minute_eur: 0.006, currency: 'EUR' } },
    { id: 'guard', pricing: { input_cost_per_million_eur: 0.1, output_cost_per_million_eur: 0, currency: 'EUR' } },
  ])('$id → $pricing', ({ id, pricing }) => {
    expect(cheapestPricing(config.models[id]!, config)).toEqual(pricing);
    if (pricing === undefined) expect(meta(id)).not.toHaveProperty('pricing');
    else expect(meta(id)['pricing']).toEqual(pricing);
  });
});
