import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { ANTHROPIC_VERSION, createAnthropicAdapter, type AnthropicModelHints, type AnthropicProviderOptions } from '../../../src/providers/anthropic/adapter.js';
import type { CallContext, ProviderAdapter } from '../../../src/providers/types.js';
import { AnthropicStreamMapper } from '../../../src/translate/anthropic-wire/stream-mapper.js';
import type { ChatChunk, ChatRequest } from '../../../src/translate/chat/types.js';
import type { FakeHandler, FakeUpstream } from '../../helpers/fake-upstream.js';
import { listRecorded, payloadsFromChunksFile, readRecorded, readRecordedJson } from '../../helpers/recorded.js';
import { foldChunks, recordedStream } from '../../unit/translate/anthropic-wire/anthropic-recordings.js';
import { collect, rejection } from '../../helpers/async.js';
import { adapterHarness } from '../../helpers/adapter-harness.js';

const request: ChatRequest = { model: 'my-alias', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], temperature: 0.2 };

const message = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-up-20250101',
  content: [{ type: 'text', text: 'Hello!' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 5, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
};

/** An Anthropic event stream as the API frames it: `event: <type>` + `data: <json>` per event. */
function anthropicSse(events: unknown[]): string {
  return events.map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

const textEvents = [
  { type: 'message_start', message: { id: 'msg_s', type: 'message', role: 'assistant', model: 'claude-up-20250101', content: [], usage: { input_tokens: 7, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'ping' },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } },
  { type: 'message_stop' },
];

const harness = adapterHarness();

async function setup(handler: FakeHandler, overrides: Partial<AnthropicProviderOptions> = {}): Promise<{ upstream: FakeUpstream; adapter: ProviderAdapter }> {
  const upstream = await harness.upstream(handler);
  const adapter = createAnthropicAdapter({ id: 'claude', baseUrl: upstream.url, apiKey: 'sk-ant-test', headers: { 'X-Extra': 'yes' }, timeoutMs: 2_000, ...overrides }, harness.httpClient);
  return { upstream, adapter };
}

function context(signal: AbortSignal = new AbortController().signal, hints: AnthropicModelHints = {}): CallContext {
  return { signal, upstreamModel: 'claude-up', requestId: 'req-1', ...hints };
}

function expectGatewayError(error: unknown, code: string): GatewayError {
  expect(error).toBeInstanceOf(GatewayError);
  expect((error as GatewayError).code).toBe(code);
  return error as GatewayError;
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 200 && !condition(); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('anthropic adapter: chat', () => {
  it('POSTs {base_url}/messages with x-api-key, anthropic-version and the configured headers; maps the answer', async () => {
    const { upstream, adapter } = await setup(() => ({ json: message }));
    const response = await adapter.chat(request, context());
    expect(adapter.kind).toBe('anthropic');
    const sent = upstream.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('sk-ant-test');
    expect(sent.headers['anthropic-version']).toBe(ANTHROPIC_VERSION);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers['x-extra']).toBe('yes');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({ model: 'claude-up', max_tokens: 4096, system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2 });
    expect(response).toMatchObject({ id: 'msg_1', object: 'chat.completion', model: 'claude-up-20250101', choices: [{ message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }] });
    expect(response.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
  });

  it('reads the model hints from the call context: max_output_tokens and reasoning', async () => {
    const { upstream, adapter } = await setup(() => ({ json: message }));
    await adapter.chat({ ...request, temperature: undefined, reasoning_effort: 'medium' }, context(undefined, { maxOutputTokens: 32_000, reasoning: true }));
    expect(upstream.requests[0]!.body).toMatchObject({ max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 4096 } });
  });

  it('without hints: max_tokens 4096, and a reasoning_effort that got this far enables thinking; reasoning: false ignores it', async () => {
    const { upstream, adapter } = await setup(() => ({ json: message }));
    await adapter.chat({ ...request, temperature: undefined, reasoning_effort: 'low' }, context());
    expect(upstream.requests[0]!.body).toMatchObject({ max_tokens: 1024 + 4096, thinking: { type: 'enabled', budget_tokens: 1024 } });
    await adapter.chat({ ...request, reasoning_effort: 'low' }, context(undefined, { reasoning: false }));
    expect(upstream.requests[1]!.body).not.toHaveProperty('thinking');
    expect(upstream.requests[1]!.body.max_tokens).toBe(4096);
  });

  it('a base_url with a trailing slash still gives /v1/messages; no api_key sends no x-api-key', async () => {
    const upstream = await harness.upstream(() => ({ json: message }));
    const adapter = createAnthropicAdapter({ id: 'claude', baseUrl: `${upstream.url}/`, headers: {}, timeoutMs: 2_000 }, harness.httpClient);
    await adapter.chat(request, context());
    expect(upstream.requests[0]!.path).toBe('/v1/messages');
    expect(upstream.requests[0]!.headers['x-api-key']).toBeUndefined();
  });

  it('a request Anthropic cannot carry is refused before anything is sent', async () => {
    const { upstream, adapter } = await setup(() => ({ json: message }));
    const error = expectGatewayError(await rejection(adapter.chat({ ...request, n: 2 }, context())), 'VALIDATION_4005');
    expect(error.details).toMatchObject({ field: 'n', provider_kind: 'anthropic' });
    expect(upstream.requests).toHaveLength(0);
  });

  it.each<[string, () => ReturnType<FakeHandler>, string, Record<string, unknown>]>([
    [
      '429 rate_limit_error with retry-after',
      () => ({ status: 429, json: { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } }, headers: { 'retry-after': '12' } }),
      'INFERENCE_3108',
      { upstream_status: 429 },
    ],
    ['529 overloaded_error', () => ({ status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }), 'INFERENCE_3105', { upstream_status: 529 }],
    [
      '400 prompt is too long',
      () => ({ status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 208310 tokens > 200000 maximum' } } }),
      'INFERENCE_3207',
      { upstream_status: 400 },
    ],
    [
      '400 other invalid_request_error',
      () => ({ status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: 100000 > 64000, which is the maximum allowed' } } }),
      'VALIDATION_4005',
      { upstream_message: 'max_tokens: 100000 > 64000, which is the maximum allowed' },
    ],
    ['401 authentication_error', () => ({ status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } }), 'INFERENCE_3105', { upstream_status: 401 }],
    ['500 api_error', () => ({ status: 500, json: { type: 'error', error: { type: 'api_error', message: 'Internal server error' } } }), 'INFERENCE_3105', { upstream_status: 500 }],
  ])('upstream %s → %s', async (_name, reply, code, details) => {
    const { adapter } = await setup(reply);
    const error = expectGatewayError(await rejection(adapter.chat(request, context())), code);
    expect(error.details).toMatchObject({ provider: 'claude', ...details });
    if (code === 'INFERENCE_3108') expect(error.headers['Retry-After']).toBe('12');
    if (_name.startsWith('401')) expect(error.message).toContain('providers.claude.api_key');
    expect(JSON.stringify(error.details)).not.toContain('sk-ant-test');
  });

  it('an error envelope inside a 200 body is classified, not read as a message', async () => {
    const { adapter } = await setup(() => ({ json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }));
    expectGatewayError(await rejection(adapter.chat(request, context())), 'INFERENCE_3105');
  });

  it('a body that is not a message → INFERENCE_3105', async () => {
    const { adapter } = await setup(() => ({ json: { content: [{ type: 'tool_use', input: {} }] } }));
    expect((expectGatewayError(await rejection(adapter.chat(request, context())), 'INFERENCE_3105')).message).toMatch(/cannot read/);
  });

  it('aborting the signal cancels the upstream request and rejects with the signal reason', async () => {
    const { upstream, adapter } = await setup(() => ({ hang: true }), { timeoutMs: 10_000 });
    const controller = new AbortController();
    const pending = rejection(adapter.chat(request, context(controller.signal)));
    await waitFor(() => upstream.requests.length === 1);
    const reason = new Error('client went away');
    controller.abort(reason);
    expect(await pending).toBe(reason);
    await upstream.requests[0]!.closed;
    expect(upstream.requests[0]!.clientClosedEarly).toBe(true);
  });

  it('an upstream that never answers → INFERENCE_3107', async () => {
    const { adapter } = await setup(() => ({ hang: true }), { timeoutMs: 200 });
    expectGatewayError(await rejection(adapter.chat(request, context())), 'INFERENCE_3107');
  });
});


describe('anthropic adapter: recorded Anthropic error bodies', () => {
  it.each([
    ['errors/anthropic-429-rate-limit.json', 429, 'INFERENCE_3108'],
    ['errors/anthropic-400-invalid-request.json', 400, 'VALIDATION_4005'],
    ['errors/anthropic-404-not-found.json', 404, 'INFERENCE_3105'],
  ])('%s (HTTP %i) → %s', async (file, status, code) => {
    const body = readRecordedJson(file);
    const { adapter } = await setup(() => ({ status, json: body, headers: { 'x-should-retry': 'true' } }));
    const error = expectGatewayError(await rejection(adapter.chat(request, context())), code);
    if (code === 'VALIDATION_4005') expect(error.details?.['upstream_message']).toBe(body.error.message);
  });
});

describe('anthropic adapter: chatStream', () => {
  it('sends stream: true and yields hub chunks: role, text, finish, usage', async () => {
    const { upstream, adapter } = await setup(() => ({ rawSse: anthropicSse(textEvents), randomChunks: true, seed: 3 }));
    const chunks = await collect(adapter.chatStream({ ...request, stream: true, stream_options: { include_usage: true } }, context()));
    const sent = upstream.requests[0]!;
    expect(sent.body.stream).toBe(true);
    expect(sent.body).not.toHaveProperty('stream_options');
    expect(sent.headers.accept).toBe('text/event-stream');
    const folded = foldChunks(chunks);
    expect(folded).toMatchObject({ id: 'msg_s', model: 'claude-up-20250101', content: 'Hello', finishReason: 'stop' });
    expect(folded.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });
    expect(chunks.at(-1)!.choices).toEqual([]);
  });

  it('an error event mid-stream → the classified error after the chunks before it', async () => {
    const events = [...textEvents.slice(0, 4), { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }];
    const { adapter } = await setup(() => ({ rawSse: anthropicSse(events) }));
    const received: ChatChunk[] = [];
    const error = await rejection(
      (async () => {
        for await (const chunk of adapter.chatStream(request, context())) received.push(chunk);
      })(),
    );
    expect(expectGatewayError(error, 'INFERENCE_3105').details).toMatchObject({ upstream_type: 'overloaded_error' });
    expect(foldChunks(received).content).toBe('Hel');
  });

  it('a rate_limit_error event → INFERENCE_3108', async () => {
    const { adapter } = await setup(() => ({ rawSse: anthropicSse([{ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }]) }));
    expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3108');
  });

  it('a stream that ends before message_stop → INFERENCE_3105 "ended early"', async () => {
    const { adapter } = await setup(() => ({ rawSse: anthropicSse(textEvents.slice(0, 7)) }));
    const error = expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3105');
    expect(error.message).toMatch(/ended early/);
  });

  it('a connection dropped mid-stream → INFERENCE_3105', async () => {
    const { adapter } = await setup(() => ({ destroy: true, sseBefore: [JSON.stringify(textEvents[0])] }));
    expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3105');
  });

  it('HTTP errors before the stream are classified like non-stream ones', async () => {
    const { adapter } = await setup(() => ({ status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }));
    expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3105');
    const limited = await setup(() => ({ status: 429, json: { type: 'error', error: { type: 'rate_limit_error', message: 'x' } }, headers: { 'retry-after': '3' } }));
    expect(expectGatewayError(await rejection(collect(limited.adapter.chatStream(request, context()))), 'INFERENCE_3108').headers['Retry-After']).toBe('3');
  });

  it('a JSON error envelope answering a stream request is classified', async () => {
    const { adapter } = await setup(() => ({ json: { type: 'error', error: { type: 'rate_limit_error', message: 'x' } } }));
    expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3108');
  });

  it('an event that is not JSON → INFERENCE_3105', async () => {
    const { adapter } = await setup(() => ({ rawSse: 'event: message_start\ndata: {"type":"message_st\n\n' }));
    expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3105');
  });

  it('aborting mid-stream closes the upstream connection and rejects with the signal reason', async () => {
    const long = [...textEvents.slice(0, 3), ...Array.from({ length: 40 }, () => textEvents[3]), ...textEvents.slice(5)];
    const { upstream, adapter } = await setup(() => ({ rawSse: anthropicSse(long), randomChunks: true, delayMs: 5 }), { timeoutMs: 10_000 });
    const controller = new AbortController();
    const received: ChatChunk[] = [];
    const reason = new Error('client went away');
    const error = await rejection(
      (async () => {
        for await (const item of adapter.chatStream(request, context(controller.signal))) {
          received.push(item);
          if (received.length === 2) controller.abort(reason);
        }
      })(),
    );
    expect(error).toBe(reason);
    await upstream.requests[0]!.closed;
    expect(upstream.requests[0]!.clientClosedEarly).toBe(true);
  });
});


describe('anthropic adapter: every recorded Anthropic stream over real HTTP', () => {
  const files = [...listRecorded('anthropic-messages', '.sse'), ...listRecorded('anthropic-messages', '.chunks.jsonl')];

  it.each(files)('%s in random byte pieces gives the same hub stream as the mapper alone', async (file) => {
    const rawSse = file.endsWith('.sse') ? readRecorded(file) : anthropicSse(payloadsFromChunksFile(file).map((line) => JSON.parse(line)));
    const { adapter } = await setup(() => ({ rawSse, randomChunks: true, seed: 42 }));
    const viaHttp = await collect(adapter.chatStream(request, context()));
    const mapper = new AnthropicStreamMapper({ providerId: 'claude', created: viaHttp[0]!.created, fallbackId: 'chatcmpl-req-1', fallbackModel: 'claude-up' });
    const direct = (await recordedStream(file)).events.flatMap((event) => mapper.push(event));
    direct.push(...mapper.end());
    expect(viaHttp).toEqual(direct);
  });
});

describe('anthropic adapter: the client\'s anthropic-beta header (DESIGN §5)', () => {
  it('native calls add the client\'s flags after the configured ones (once each); translated calls never send them', async () => {
    const { upstream, adapter } = await setup((incoming) => (incoming.body.stream === true ? { rawSse: anthropicSse(textEvents) } : { json: message }), { headers: { 'anthropic-beta': 'configured-flag' } });
    const withBeta = { ...context(), passThroughHeaders: { 'anthropic-beta': 'client-flag-1, configured-flag,client-flag-2' } };
    await adapter.messages!({ model: 'x', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }, withBeta);
    expect(upstream.requests[0]!.headers['anthropic-beta']).toBe('configured-flag,client-flag-1,client-flag-2');
    expect(await collect(adapter.messagesStream!({ model: 'x', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }, withBeta))).toHaveLength(textEvents.length);
    expect(upstream.requests[1]!.headers['anthropic-beta']).toBe('configured-flag,client-flag-1,client-flag-2');
    await adapter.chat(request, withBeta);
    expect(upstream.requests[2]!.headers['anthropic-beta']).toBe('configured-flag');
  });
});
