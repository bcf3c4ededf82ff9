import { describe, expect, it } from 'vitest';
import { NO_CONSUMPTION } from '../../../src/billing/price.js';
import { committedFailure, consumptionOf, meterCall, resolveTarget } from '../../../src/inference/index.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { makeUsage } from '../../../src/translate/chat/types.js';
import { scopeFixture, TWO_ROUTES } from './scope-fixture.js';

/** Stages "meter" and "log": price on the serving route, settle, impact, and the request-log fields. */
describe('meterCall', () => {
  it.each([
    { name: 'a priced route', route: 0, usage: makeUsage(2, 1), direct: undefined, credits: '4', provider: 'a', logRoute: 'a/a-model', debits: 1 },
    { name: 'an unpriced route', route: 1, usage: makeUsage(2, 1), direct: undefined, credits: '0', provider: 'b', logRoute: 'b/b-model', debits: 0 },
    { name: 'a blueprint direct answer', route: 0, usage: undefined, direct: { finishReason: 'blocked' }, credits: '0', provider: 'blueprint', logRoute: 'blueprint/blocked', debits: 0 },
  ])('$name', async ({ route, usage, direct, credits, provider, logRoute, debits }) => {
    const fixture = scopeFixture({ raw: TWO_ROUTES });
    const { scope } = fixture;
    const candidate = resolveTarget(scope, 'duo', ['chat']).candidates[route]!;
    const metering = meterCall(scope, candidate, usage === undefined ? NO_CONSUMPTION : consumptionOf(usage), direct);
    expect(metering.billing_cost.credits).toBe(credits);
    expect(metering.environment_impact).toHaveProperty('energy_kwh');
    expect(scope.log).toMatchObject({ provider, route: logRoute, input_tokens: usage?.prompt_tokens ?? 0, output_tokens: usage?.completion_tokens ?? 0, eur: credits });
    await Promise.resolve();
    expect(fixture.debits).toHaveLength(debits);
  });
});

/** A failure after output started: what the client is told, what is logged. */
describe('committedFailure', () => {
  it.each([
    { name: 'a gateway error as is', failure: new GatewayError('INFERENCE_3107', 'timed out'), code: 'INFERENCE_3107', logged: 0 },
    { name: 'anything else is INFERENCE_3105, logged once', failure: new TypeError('boom'), code: 'INFERENCE_3105', logged: 1 },
  ])('$name', ({ failure, code, logged }) => {
    const fixture = scopeFixture();
    expect(committedFailure(fixture.scope, failure).code).toBe(code);
    expect(fixture.scope.log.error_code).toBe(code);
    expect(fixture.errors).toHaveLength(logged);
  });
});
