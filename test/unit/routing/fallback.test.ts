import { describe, expect, it, vi } from 'vitest';
import type { ProviderConfig } from '../../../src/config/schema.js';
import type { ErrorCode } from '../../../src/errors/catalog.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { tryRoutes } from '../../../src/routing/fallback.js';
import type { CandidateRoute } from '../../../src/routing/select.js';
import { providerConfig } from '../../helpers/provider-config.js';

const provider: ProviderConfig = providerConfig();

const candidate = (providerId: string): CandidateRoute => ({
  providerId,
  provider,
  route: { provider: providerId, upstream_model: 'm', priority: 1, flavors: [], energy: {} },
});

type Outcome = 'ok' | ErrorCode | 'plain-error';

/** Runs tryRoutes over one route per outcome; returns what happened and which routes were called. */
async function run(outcomes: Outcome[], signal = new AbortController().signal) {
  const called: string[] = [];
  const candidates = outcomes.map((_, index) => candidate(`p${index + 1}`));
  const attempt = async (route: CandidateRoute) => {
    called.push(route.providerId);
    const outcome = outcomes[Number(route.providerId.slice(1)) - 1]!;
    if (outcome === 'ok') return `answer from ${route.providerId}`;
    if (outcome === 'plain-error') throw new TypeError('boom');
    throw new GatewayError(outcome, `${outcome} from ${route.providerId}`);
  };
  try {
    const result = await tryRoutes(candidates, signal, attempt);
    return { called, result, error: undefined };
  } catch (error) {
    return { called, result: undefined, error };
  }
}

describe('tryRoutes', () => {
  it.each<{ name: string; outcomes: Outcome[]; answeredBy: string; called: string[] }>([
    { name: 'first route answers', outcomes: ['ok', 'ok'], answeredBy: 'p1', called: ['p1'] },
    { name: 'second route after a provider error', outcomes: ['INFERENCE_3105', 'ok'], answeredBy: 'p2', called: ['p1', 'p2'] },
    { name: 'second route after a timeout', outcomes: ['INFERENCE_3107', 'ok'], answeredBy: 'p2', called: ['p1', 'p2'] },
    { name: 'second route after a provider rate limit', outcomes: ['INFERENCE_3108', 'ok'], answeredBy: 'p2', called: ['p1', 'p2'] },
    { name: 'third route after two transient failures', outcomes: ['INFERENCE_3105', 'INFERENCE_3107', 'ok'], answeredBy: 'p3', called: ['p1', 'p2', 'p3'] },
  ])('$name', async ({ outcomes, answeredBy, called }) => {
    const outcome = await run(outcomes);
    expect(outcome.error).toBeUndefined();
    expect(outcome.result).toEqual({ result: `answer from ${answeredBy}`, candidate: expect.objectContaining({ providerId: answeredBy }) });
    expect(outcome.called).toEqual(called);
  });

  it.each<{ name: string; outcomes: Outcome[]; code: string }>([
    { name: 'content filter', outcomes: ['INFERENCE_3208', 'ok'], code: 'INFERENCE_3208' },
    { name: 'context window', outcomes: ['INFERENCE_3207', 'ok'], code: 'INFERENCE_3207' },
    { name: 'validation error', outcomes: ['VALIDATION_4005', 'ok'], code: 'VALIDATION_4005' },
    { name: 'billing error', outcomes: ['BILLING_2001', 'ok'], code: 'BILLING_2001' },
  ])('a non-retryable $name stops at once', async ({ outcomes, code }) => {
    const outcome = await run(outcomes);
    expect((outcome.error as GatewayError).code).toBe(code);
    expect(outcome.called).toEqual(['p1']);
  });

  it('an error that is not a GatewayError stops at once and is rethrown as is', async () => {
    const outcome = await run(['plain-error', 'ok']);
    expect(outcome.error).toBeInstanceOf(TypeError);
    expect(outcome.called).toEqual(['p1']);
  });

  it.each<ErrorCode>(['INFERENCE_3105', 'INFERENCE_3107', 'INFERENCE_3108'])('a single failing route keeps its own code %s', async (code) => {
    const outcome = await run([code]);
    expect((outcome.error as GatewayError).code).toBe(code);
    expect((outcome.error as GatewayError).message).toBe(`${code} from p1`);
  });

  it.each<{ outcomes: ErrorCode[] }>([{ outcomes: ['INFERENCE_3105', 'INFERENCE_3107'] }, { outcomes: ['INFERENCE_3108', 'INFERENCE_3105', 'INFERENCE_3107'] }])(
    'all of $outcomes failing → INFERENCE_3103 with details.attempts',
    async ({ outcomes }) => {
      const outcome = await run(outcomes);
      const error = outcome.error as GatewayError;
      expect(error.code).toBe('INFERENCE_3103');
      expect(error.status).toBe(502);
      expect(error.retryable).toBe(true);
      expect(error.details).toEqual({
        attempts: outcomes.map((code, index) => ({ provider: `p${index + 1}`, code, message: `${code} from p${index + 1}` })),
      });
      expect((error.cause as GatewayError).code).toBe(outcomes.at(-1));
    },
  );

  it('stops when the request is aborted between attempts', async () => {
    const controller = new AbortController();
    const attempt = vi.fn(async () => {
      controller.abort();
      throw new GatewayError('INFERENCE_3105');
    });
    await expect(tryRoutes([candidate('p1'), candidate('p2')], controller.signal, attempt)).rejects.toMatchObject({ code: 'INFERENCE_3105' });
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('an already aborted request tries nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const attempt = vi.fn(async () => 'x');
    await expect(tryRoutes([candidate('p1')], controller.signal, attempt)).rejects.toBeInstanceOf(GatewayError);
    expect(attempt).not.toHaveBeenCalled();
  });
});
