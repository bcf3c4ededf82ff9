import { describe, expect, it } from 'vitest';
import { Catalog } from '../../../src/catalog/catalog.js';
import { buildConfig } from '../../../src/config/load.js';
import type { ModelType, PlanConfig } from '../../../src/config/schema.js';
import { gatewayErrorOf } from '../../helpers/thrown.js';

const config = buildConfig(
  {
    providers: {
      openai: { kind: 'openai', base_url: 'https://api.openai.com/v1' },
      offline: { kind: 'openai', base_url: 'https://down.test/v1', enabled: false },
    },
    plans: { pro: { benefits: ['advanced_models'] }, basic: { benefits: ['api_usage'] } },
    models: {
      'gpt-4o-mini': { type: 'chat', routes: [{ provider: 'openai', upstream_model: 'gpt-4o-mini', flavors: ['speed', 'batch'] }] },
      'big-model': { type: 'chat', advanced: true, routes: [{ provider: 'openai', upstream_model: 'big', flavors: ['eco'] }] },
      'dead-model': { type: 'chat', routes: [{ provider: 'offline', upstream_model: 'dead' }] },
      'half-dead': { type: 'embeddings', routes: [{ provider: 'offline', upstream_model: 'x' }, { provider: 'openai', upstream_model: 'y' }] },
    },
  },
  null,
  {},
);
const catalog = new Catalog(config);
const developer = config.plans['developer']!;
const free = config.plans['free']!;
const basic = config.plans['basic']!;

describe('Catalog.resolve', () => {
  it.each<{ requested: string; plan: PlanConfig; types?: ModelType[]; id: string; flavor: string | null }>([
    { requested: 'gpt-4o-mini', plan: free, id: 'gpt-4o-mini', flavor: null },
    { requested: 'gpt-4o-mini:speed', plan: free, id: 'gpt-4o-mini', flavor: 'speed' },
    { requested: 'gpt-4o-mini:batch', plan: free, types: ['chat'], id: 'gpt-4o-mini', flavor: 'batch' },
    { requested: 'local-echo:free', plan: free, id: 'local-echo', flavor: 'free' },
    { requested: 'big-model', plan: developer, id: 'big-model', flavor: null },
    { requested: 'big-model:eco', plan: developer, id: 'big-model', flavor: 'eco' },
    { requested: 'half-dead', plan: free, types: ['embeddings'], id: 'half-dead', flavor: null },
    { requested: 'local-rerank', plan: free, types: ['reranker'], id: 'local-rerank', flavor: null },
  ])('$requested resolves to $id ($flavor)', ({ requested, plan, types, id, flavor }) => {
    const resolved = catalog.resolve(requested, plan, 'plan', types);
    expect(resolved).toMatchObject({ id, flavor, requested });
    expect(resolved.model).toBe(config.models[id]);
  });

  it.each<{ name: string; requested: string }>([
    { name: 'unknown model', requested: 'gpt-5' },
    { name: 'unknown flavor suffix', requested: 'gpt-4o-mini:cheap' },
    { name: 'flavor the model has no route for', requested: 'gpt-4o-mini:eco' },
    { name: 'free flavor on a model without it', requested: 'gpt-4o-mini:free' },
    { name: 'model whose only provider is disabled', requested: 'dead-model' },
    { name: 'case matters', requested: 'GPT-4o-mini' },
  ])('$name → INFERENCE_3001', ({ requested }) => {
    const error = gatewayErrorOf(() => catalog.resolve(requested, developer, 'developer'));
    expect(error.code).toBe('INFERENCE_3001');
    expect(error.status).toBe(404);
    expect(error.details).toEqual({ model: requested });
  });

  it.each<{ requested: string; plan: PlanConfig; hint: string }>([
    { requested: 'gpt-4o-mni', plan: developer, hint: 'Did you mean "gpt-4o-mini"?' },
    { requested: 'GPT-4o-mini', plan: developer, hint: 'Did you mean "gpt-4o-mini"?' },
    { requested: 'gpt-4o-mini:sped', plan: developer, hint: 'Did you mean ":speed"?' },
    { requested: 'gpt-4o-mini:eco', plan: developer, hint: 'use "gpt-4o-mini" or "gpt-4o-mini:speed", "gpt-4o-mini:batch"' },
    { requested: 'dead-model', plan: developer, hint: 'List the available models' },
  ])('$requested: the refusal points at what exists ($hint)', ({ requested, plan, hint }) => {
    expect(gatewayErrorOf(() => catalog.resolve(requested, plan, 'plan')).message).toContain(hint);
  });

  it('an advanced model is never suggested to a plan that cannot use it', () => {
    expect(gatewayErrorOf(() => catalog.resolve('big-mode', developer, 'developer')).message).toContain('Did you mean "big-model"?');
    expect(gatewayErrorOf(() => catalog.resolve('big-mode', free, 'free')).message).not.toContain('big-model"?');
  });

  it.each<{ plan: PlanConfig; planName: string }>([
    { plan: free, planName: 'free' },
    { plan: basic, planName: 'basic' },
  ])('an advanced model on plan $planName → VALIDATION_4003 naming a plan that has advanced_models', ({ plan, planName }) => {
    const error = gatewayErrorOf(() => catalog.resolve('big-model', plan, planName));
    expect(error.code).toBe('VALIDATION_4003');
    expect(error.status).toBe(403);
    expect(error.details).toMatchObject({ benefit: 'advanced_models', plan: planName });
    const required = (error.details as { required_plan: string }).required_plan;
    expect(['developer', 'pro']).toContain(required);
    expect(config.plans[required]!.benefits).toContain('advanced_models');
    expect(error.message).toContain(`"${required}"`);
  });

  it('an advanced model with no plan offering it → VALIDATION_4003 without required_plan', () => {
    const onlyBasic = buildConfig(
      { plans: { developer: { benefits: [] } }, models: { adv: { type: 'chat', advanced: true, routes: [{ provider: 'local', upstream_model: 'x' }] } } },
      null,
      {},
    );
    const error = gatewayErrorOf(() => new Catalog(onlyBasic).resolve('adv', onlyBasic.plans['free']!, 'free'));
    expect(error.code).toBe('VALIDATION_4003');
    expect(error.details).not.toHaveProperty('required_plan');
  });

  it.each<{ requested: string; types: ModelType[] }>([
    { requested: 'gpt-4o-mini', types: ['embeddings'] },
    { requested: 'local-embed', types: ['chat'] },
    { requested: 'local-echo', types: ['image'] },
    { requested: 'local-image', types: ['reranker', 'embeddings'] },
  ])('$requested for an endpoint needing $types → VALIDATION_4005 on field model', ({ requested, types }) => {
    const error = gatewayErrorOf(() => catalog.resolve(requested, developer, 'developer', types));
    expect(error.code).toBe('VALIDATION_4005');
    expect(error.status).toBe(400);
    expect(error.details).toEqual({ field: 'model' });
  });
});

describe('Catalog visibility', () => {
  it('activeModels drops models with no enabled provider', () => {
    const ids = catalog.activeModels().map(([id]) => id);
    expect(ids).not.toContain('dead-model');
    expect(ids).toEqual(expect.arrayContaining(['gpt-4o-mini', 'big-model', 'half-dead', 'local-echo', 'local-embed', 'local-rerank', 'local-image']));
  });

  it.each<{ planName: string; showsAdvanced: boolean }>([
    { planName: 'developer', showsAdvanced: true },
    { planName: 'pro', showsAdvanced: true },
    { planName: 'free', showsAdvanced: false },
    { planName: 'basic', showsAdvanced: false },
  ])('visibleTo($planName) shows advanced models: $showsAdvanced', ({ planName, showsAdvanced }) => {
    const ids = catalog.visibleTo(config.plans[planName]!).map(([id]) => id);
    expect(ids.includes('big-model')).toBe(showsAdvanced);
    expect(ids).toContain('gpt-4o-mini');
    expect(ids).not.toContain('dead-model');
  });

  it.each<{ type: ModelType; expected: string | undefined }>([
    { type: 'chat', expected: 'local-echo' },
    { type: 'embeddings', expected: 'local-embed' },
    { type: 'image', expected: 'local-image' },
    { type: 'audio', expected: undefined },
  ])('firstOfType($type) → $expected', ({ type, expected }) => {
    expect(catalog.firstOfType(type, free)).toBe(expected);
  });
});
