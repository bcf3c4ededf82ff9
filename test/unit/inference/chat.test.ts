import { describe, expect, it } from 'vitest';
import { OutputGuard } from '../../../src/blueprints/output-guard.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { completeChat, meterServed, openChat, resolveTarget, type ChatPlan } from '../../../src/inference/index.js';
import { makeUsage, type ChatChunk, type ChatRequest, type ChatResponse } from '../../../src/translate/chat/types.js';
import { scopeFixture, TWO_ROUTES } from './scope-fixture.js';

const request: ChatRequest = { model: 'duo', messages: [{ role: 'user', content: 'hi' }] };
const piece = (content: string | undefined, finish: ChatChunk['choices'][0]['finish_reason'] = null, usage?: ChatChunk['usage']): ChatChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'upstream',
  choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }],
  ...(usage === undefined ? {} : { usage }),
});

async function* upstream(chunks: ChatChunk[], failAfter?: number): AsyncGenerator<ChatChunk> {
  for (const [index, chunk] of chunks.entries()) {
    if (index === failAfter) throw new TypeError('socket hang up');
    yield chunk;
  }
}

const completion = (content: string): ChatResponse => ({
  id: 'r',
  object: 'chat.completion',
  created: 1,
  model: 'upstream',
  choices: [{ index: 0, message: { role: 'assistant', content, tool_calls: null }, finish_reason: 'stop', logprobs: null }],
  usage: makeUsage(3, 2),
  system_fingerprint: null,
});

/** The hub chat flow end to end over the stages: source (provider or direct answer) → drive → meter. */
describe('openChat → drive → meterServed', () => {
  it.each([
    { name: 'a provider stream with reported usage', chunks: [piece('hel'), piece('lo', 'stop'), piece(undefined, null, makeUsage(5, 2))], failAfter: undefined, guard: false, direct: false, text: 'hello', usage: [5, 2], failure: undefined, provider: 'a' },
    { name: 'a provider failing mid-stream: failure as 3105, usage counted', chunks: [piece('hel'), piece('lo')], failAfter: 1, guard: false, direct: false, text: 'hel', usage: [undefined, 1], failure: 'INFERENCE_3105', provider: 'a' },
    { name: 'output railguards block the answer', chunks: [piece('a secret '), piece('more', 'stop')], failAfter: undefined, guard: true, direct: false, text: 'withheld', usage: [undefined, undefined], failure: undefined, provider: 'a' },
    { name: 'a blueprint direct answer is a chunk source, zero usage', chunks: [], failAfter: undefined, guard: false, direct: true, text: 'no can do', usage: [0, 0], failure: undefined, provider: 'blueprint' },
  ])('$name', async ({ chunks, failAfter, guard, direct, text, usage, failure, provider }) => {
    const { scope } = scopeFixture({ raw: TWO_ROUTES, adapters: { a: { chatStream: () => upstream(chunks, failAfter) } } });
    const plan: ChatPlan = {
      target: resolveTarget(scope, 'duo', ['chat']),
      request,
      ...(guard ? { outputGuard: new OutputGuard([{ message: 'withheld', words: ['secret'] }], {}) } : {}),
      ...(direct ? { direct: { finishReason: 'blocked' as const, text: 'no can do' }, directMeta: { id: 'chatcmpl-x', created: 1, model: 'duo', n: 1 } } : {}),
    };
    const opened = await openChat(scope, plan);
    const sent: string[] = [];
    const driven = await opened.drive((chunk) => void sent.push(chunk.choices.map((choice) => choice.delta.content ?? '').join('')));
    expect(sent.join('')).toBe(text);
    if (usage[0] !== undefined) expect(driven.usage.prompt_tokens).toBe(usage[0]);
    if (usage[1] !== undefined) expect(driven.usage.completion_tokens).toBe(usage[1]);
    expect(driven.failure?.code).toBe(failure);
    meterServed(scope, opened, driven.usage);
    expect(scope.log.provider).toBe(provider);
  });
});

describe('completeChat', () => {
  it.each([
    { name: 'the provider answer', content: 'fine', guard: false, direct: false, expected: ['fine', 'stop'] },
    { name: 'railguards rewrite a matching answer', content: 'a secret', guard: true, direct: false, expected: ['withheld', 'blocked'] },
    { name: 'a direct answer without any provider call', content: 'unused', guard: false, direct: true, expected: ['override', 'blueprint_override'] },
  ])('$name', async ({ content, guard, direct, expected }) => {
    let calls = 0;
    const { scope } = scopeFixture({ raw: TWO_ROUTES, adapters: { a: { chat: async () => (calls++, completion(content)) } } });
    const completed = await completeChat(scope, {
      target: resolveTarget(scope, 'duo', ['chat']),
      request,
      ...(guard ? { outputGuard: new OutputGuard([{ message: 'withheld', words: ['secret'] }], {}) } : {}),
      ...(direct ? { direct: { finishReason: 'blueprint_override' as const, text: 'override' } } : {}),
    });
    const choice = completed.response.choices[0]!;
    expect([choice.message.content, choice.finish_reason]).toEqual(expected);
    expect(calls).toBe(direct ? 0 : 1);
  });

  it('an upstream refusal propagates as is', async () => {
    const { scope } = scopeFixture({ raw: TWO_ROUTES, adapters: { a: { chat: async () => Promise.reject(new GatewayError('VALIDATION_4005', 'no')) } } });
    await expect(completeChat(scope, { target: resolveTarget(scope, 'duo', ['chat']), request })).rejects.toMatchObject({ code: 'VALIDATION_4005' });
  });
});

/** Native same-wire pass-through is a capability of the call stage: per route, native or hub, one fallback. */
describe('native pass-through inside the call stage', () => {
  it.each([
    { name: 'a native route answers natively', a: 'native', b: 'hub', refuse: false, served: 'a', via: 'native', code: undefined },
    { name: 'a failing native route falls through to a translated one', a: 'native-fails', b: 'hub', refuse: false, served: 'b', via: 'hub', code: undefined },
    { name: 'a translation that cannot carry the request refuses before the hub call', a: 'hub', b: 'hub', refuse: true, served: undefined, via: undefined, code: 'VALIDATION_4005' },
  ] as const)('$name', async ({ a, b, refuse, served, via, code }) => {
    const adapter = (mode: 'native' | 'native-fails' | 'hub') => ({
      chat: async () => completion('from the hub'),
      chatStream: () => upstream([piece('from the hub', 'stop')]),
      ...(mode === 'hub' ? {} : { messages: async () => (mode === 'native-fails' ? Promise.reject(new GatewayError('INFERENCE_3105', 'down')) : { body: { content: 'native' }, usage: makeUsage(1, 1) }) }),
      ...(mode === 'hub' ? {} : { messagesStream: () => (async function* () { if (mode === 'native-fails') throw new GatewayError('INFERENCE_3105', 'down'); yield { type: 'message_stop', payload: {} }; })() }),
    });
    const { scope } = scopeFixture({ raw: TWO_ROUTES, adapters: { a: adapter(a), b: adapter(b) } });
    const plan: ChatPlan = { target: resolveTarget(scope, 'duo', ['chat']), request, ...(refuse ? { beforeHub: () => { throw new GatewayError('VALIDATION_4005', 'cannot translate'); } } : {}) };
    const completed = await completeChat(scope, plan, ({ adapter: route, context }) => (route.messages === undefined ? undefined : () => route.messages!({}, context))).catch((error: GatewayError) => ({ code: error.code }));
    const opened = await openChat(scope, plan, {}, ({ adapter: route, context }) => (route.messagesStream === undefined ? undefined : () => route.messagesStream!({}, context))).catch((error: GatewayError) => ({ code: error.code }));
    for (const outcome of [completed, opened]) {
      if (code !== undefined) {
        expect(outcome).toEqual({ code });
        continue;
      }
      expect('candidate' in outcome && outcome.candidate.providerId).toBe(served);
      expect('candidate' in outcome && (outcome.native === undefined ? 'hub' : 'native')).toBe(via);
    }
  });
});
