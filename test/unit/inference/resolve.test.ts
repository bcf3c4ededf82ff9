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
