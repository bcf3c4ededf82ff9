import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { callWithFallback, peek, resolveTarget } from '../../../src/inference/index.js';
import type { CallContext } from '../../../src/providers/types.js';
import type { ChatChunk } from '../../../src/translate/chat/types.js';
import { scopeFixture, TWO_ROUTES } from './scope-fixture.js';

const chunk: ChatChunk = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] };

/** A stream that fails before its first chunk (`early`), after it (`late`), or not at all. */
async function* scripted(mode: 'ok' | 'early' | 'late' | 'bad-request'): AsyncGenerator<ChatChunk> {
  if (mode === 'early') throw new GatewayError('INFERENCE_3105', 'reset before any byte');
  if (mode === 'bad-request') throw new GatewayError('VALIDATION_4005', 'the upstream refused the request');
  yield chunk;
  if (mode === 'late') throw new GatewayError('INFERENCE_3105', 'reset mid-stream');
}

/** Stage "call with fallback": which route serves, what context it gets, and when fallback stops. */
describe('callWithFallback + peek', () => {
  it.each([
    { name: 'first route answers', a: 'ok', b: 'ok', served: 'a', code: undefined },
    { name: 'a stream failing before its first chunk falls through', a: 'early', b: 'ok', served: 'b', code: undefined },
    { name: 'a stream failing after its first chunk is committed', a: 'late', b: 'ok', served: 'a', code: undefined },
    { name: 'a non-retryable refusal stops at once', a: 'bad-request', b: 'ok', served: undefined, code: 'VALIDATION_4005' },
    { name: 'every route failing → INFERENCE_3103', a: 'early', b: 'early', served: undefined, code: 'INFERENCE_3103' },
  ] as const)('$name', async ({ a, b, served, code }) => {
    const contexts: CallContext[] = [];
    const adapter = (mode: 'ok' | 'early' | 'late' | 'bad-request') => ({ chatStream: (_request: unknown, context: CallContext) => (contexts.push(context), scripted(mode)) });
    const { scope } = scopeFixture({ raw: TWO_ROUTES, adapters: { a: adapter(a), b: adapter(b) } });
    const target = resolveTarget(scope, 'duo', ['chat']);
    const outcome = callWithFallback(scope, target.candidates, { ...target.hints, passThroughHeaders: { 'anthropic-beta': 'x' } }, ({ adapter: route, context }) =>
      peek(route.chatStream({ model: 'duo', messages: [] }, context)),
    ).then(
      (result) => ({ served: result.candidate.providerId, first: result.result.first }),
      (error: GatewayError) => ({ code: error.code }),
    );
    const result = await outcome;
    if (code !== undefined) {
      expect(result).toEqual({ code });
      return;
    }
    expect(result).toEqual({ served, first: { done: false, value: chunk } });
    const last = contexts.at(-1)!;
    expect(last).toMatchObject({ upstreamModel: served === 'a' ? 'a-model' : 'b-model', requestId: 'req_test', passThroughHeaders: { 'anthropic-beta': 'x' } });
    expect(last.signal).toBe(scope.signal);
    expect(scope.timing.upstreamMs).toBeGreaterThan(0);
  });
});
