import { describe, expect, it } from 'vitest';
import { resolveTarget, routesServing } from '../../../src/inference/index.js';
import { gatewayErrorOf } from '../../helpers/thrown.js';
import { scopeFixture, TWO_ROUTES } from './scope-fixture.js';

/** Stage "resolve" (+ balance preflight): model string in, ranked routes and hints out, or the refusal. */
describe('resolveTarget', () => {
  it.each([
    { name: 'a chat model: both routes, priority order', model: 'duo', routes: ['a', 'b'] },
    { name: 'a built-in model', model: 'local-echo', routes: ['local'] },
  ])('$name', ({ model, routes }) => {
    const { scope } = scopeFixture({ raw: TWO_ROUTES });
    const target = resolveTarget(scope, model, ['chat']);
    expect(target.candidates.map((candidate) => candidate.providerId)).toEqual(routes);
    expect(target.resolved.requested).toBe(model);
    expect(scope.log.model).toBe(model);
    expect(target.hints).toHaveProperty('reasoning');
  });

  it.each([
    { name: 'unknown model', model: 'nope', types: ['chat'] as const, account: {}, code: 'INFERENCE_3001' },
    { name: 'wrong model type', model: 'duo', types: ['embeddings'] as const, account: {}, code: 'VALIDATION_4005' },
    { name: 'no energy and no credits', model: 'duo', types: ['chat'] as const, account: { plan: 'developer', credits: '0', energy: '0' }, code: 'BILLING_2001' },
  ])('refuses: $name → $code', ({ model, types, account, code }) => {
    const { scope } = scopeFixture({ raw: TWO_ROUTES, account });
    expect(gatewayErrorOf(() => resolveTarget(scope, model, types)).code).toBe(code);
  });

  it('routesServing keeps only routes whose adapter has the operation, else INFERENCE_3104', () => {
    const { scope } = scopeFixture({ raw: TWO_ROUTES, adapters: { a: {}, b: { embed: async () => ({ vectors: [], promptTokens: 0 }) } } });
    const { candidates } = resolveTarget(scope, 'duo', ['chat']);
    expect(routesServing(scope, candidates, 'embed', 'embeddings').map((candidate) => candidate.providerId)).toEqual(['b']);
    expect(gatewayErrorOf(() => routesServing(scope, candidates, 'rerank', 'rerank')).code).toBe('INFERENCE_3104');
  });
});

/** The resolution kept per config, plan and model (target-cache.ts): each input that can change the answer must reach it. */
describe('resolveTarget over its cache', () => {
  const PLANS = {
    ...TWO_ROUTES,
    plans: { basic: { benefits: ['api_usage'] }, pro: { benefits: ['api_usage', 'advanced_models'] } },
    models: { ...TWO_ROUTES.models, deep: { ...TWO_ROUTES.models.duo, advanced: true } },
  };

  it('a key moved to another plan sees that plan at once, both ways', () => {
    const { scope, config } = scopeFixture({ raw: PLANS, account: { plan: 'pro' } });
    const onPlan = (name: 'basic' | 'pro') => ({ ...scope, planName: name, plan: config.plans[name]!, log: {} });
    expect(resolveTarget(onPlan('pro'), 'deep', ['chat']).resolved.id).toBe('deep');
    expect(gatewayErrorOf(() => resolveTarget(onPlan('basic'), 'deep', ['chat'])).code).toBe('VALIDATION_4003');
    expect(resolveTarget(onPlan('pro'), 'deep', ['chat']).resolved.id).toBe('deep');
  });

  it('types and routing options are part of the key', () => {
    const { scope } = scopeFixture({ raw: TWO_ROUTES });
    expect(resolveTarget(scope, 'duo', ['chat']).candidates.map((candidate) => candidate.providerId)).toEqual(['a', 'b']);
    // By price: b has no pricing, so it is cheaper and leads.
    expect(resolveTarget(scope, 'duo', ['chat'], { order: 'price' }).candidates.map((candidate) => candidate.providerId)).toEqual(['b', 'a']);
    expect(gatewayErrorOf(() => resolveTarget(scope, 'duo', ['embeddings'])).code).toBe('VALIDATION_4005');
  });

  it('another config (a new catalog) answers from its own routes', () => {
    const first = scopeFixture({ raw: TWO_ROUTES });
    expect(resolveTarget(first.scope, 'duo', ['chat']).candidates.map((candidate) => candidate.providerId)).toEqual(['a', 'b']);
    const swapped = { ...TWO_ROUTES, models: { duo: { ...TWO_ROUTES.models.duo, routes: [TWO_ROUTES.models.duo.routes[1]!] } } };
    const second = scopeFixture({ raw: swapped });
    expect(resolveTarget(second.scope, 'duo', ['chat']).candidates.map((candidate) => candidate.providerId)).toEqual(['b']);
  });

  it('live health still reorders: a cooling route goes last, and leads again once it recovers', () => {
    const { scope } = scopeFixture({ raw: TWO_ROUTES });
    const order = () => resolveTarget(scope, 'duo', ['chat']).candidates.map((candidate) => candidate.providerId);
    expect(order()).toEqual(['a', 'b']);
    scope.deps.routeHealth.recordFailure('a/a-model');
    expect(order()).toEqual(['b', 'a']);
    scope.deps.routeHealth.recordSuccess('a/a-model', 5);
    expect(order()).toEqual(['a', 'b']);
  });

  it('the shared answer cannot be changed by one request', () => {
    const { scope } = scopeFixture({ raw: TWO_ROUTES });
    const target = resolveTarget(scope, 'duo', ['chat']);
    expect(() => target.candidates.reverse()).toThrow(TypeError);
    expect(resolveTarget(scope, 'duo', ['chat']).candidates.map((candidate) => candidate.providerId)).toEqual(['a', 'b']);
  });
});
