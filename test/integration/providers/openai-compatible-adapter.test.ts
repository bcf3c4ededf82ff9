import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { createOpenAiCompatibleAdapter, type OpenAiCompatibleProviderOptions } from '../../../src/providers/openai-compatible/adapter.js';
import { ChunkNormalizer } from '../../../src/providers/openai-compatible/normalize-stream.js';
import { decodeSse } from '../../../src/providers/sse-decode.js';
import type { CallContext, ProviderAdapter } from '../../../src/providers/types.js';
import type { ChatChunk, ChatRequest } from '../../../src/translate/chat/types.js';
import type { FakeHandler, FakeUpstream } from '../../helpers/fake-upstream.js';
import { listRecorded, readRecorded, sseFromChunksFile } from '../../helpers/recorded.js';
import { collect, rejection } from '../../helpers/async.js';
import { adapterHarness } from '../../helpers/adapter-harness.js';

const request: ChatRequest = { model: 'my-alias', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2, max_tokens: undefined };

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_720_000_000,
  model: 'up-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
};

const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
  JSON.stringify({ id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1_720_000_000, model: 'up-model', choices: [{ index: 0, delta, finish_reason: finishReason }] });
const usageChunk = JSON.stringify({ id: 'chatcmpl-2', object: 'chat.completion.chunk', created: 1_720_000_000, model: 'up-model', choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });
const textStream = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop'), usageChunk];

const harness = adapterHarness();

async function setup(handler: FakeHandler, overrides: Partial<OpenAiCompatibleProviderOptions> = {}): Promise<{ upstream: FakeUpstream; adapter: ProviderAdapter }> {
  const upstream = await harness.upstream(handler);
  const adapter = createOpenAiCompatibleAdapter(
    { id: 'acme', baseUrl: upstream.url, apiKey: 'sk-test', headers: { 'X-Extra': 'yes' }, timeoutMs: 2_000, ...overrides },
    harness.httpClient,
  );
  return { upstream, adapter };
}

function context(signal: AbortSignal = new AbortController().signal): CallContext {
  return { signal, upstreamModel: 'up-model', requestId: 'req-1' };
}

function expectGatewayError(error: unknown, code: string): GatewayError {
  expect(error).toBeInstanceOf(GatewayError);
  expect((error as GatewayError).code).toBe(code);
  expect((error as GatewayError).details?.['provider']).toBe('acme');
  return error as GatewayError;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('openai-compatible adapter: chat', () => {
  it('posts the hub request with the upstream model, auth and configured headers', async () => {
    const { upstream, adapter } = await setup(() => ({ json: completion }));
    const response = await adapter.chat({ ...request, stream_options: { include_usage: true } }, context());
    expect(response).toMatchObject({ id: 'chatcmpl-1', object: 'chat.completion', model: 'up-model', choices: [{ message: { content: 'Hello!' }, finish_reason: 'stop' }] });
    expect(response.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, cached_tokens: 0 });
    const sent = upstream.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers['authorization']).toBe('Bearer sk-test');
    expect(sent.headers['x-extra']).toBe('yes');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.body).toEqual({ model: 'up-model', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2, stream: false });
    expect(sent.rawBody).not.toContain('max_tokens');
  });

  it('sends no Authorization header without an api key', async () => {
    const { upstream, adapter } = await setup(() => ({ json: completion }), { apiKey: undefined });
    await adapter.chat(request, context());
    expect(upstream.requests[0]!.headers['authorization']).toBeUndefined();
  });

  it('reuses keep-alive connections', async () => {
    const { upstream, adapter } = await setup(() => ({ json: completion }));
    for (let round = 0; round < 6; round += 1) await adapter.chat(request, context());
    // undici may open a second socket when a request follows the previous one within the same
    // tick; without pooling there would be six.
    expect(new Set(upstream.requests.map((sent) => sent.remotePort)).size).toBeLessThanOrEqual(2);
  });

  it('429 with Retry-After → INFERENCE_3108 carrying Retry-After', async () => {
    const { adapter } = await setup(() => ({ status: 429, json: { error: { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' } }, headers: { 'Retry-After': '12' } }));
    const error = expectGatewayError(await rejection(adapter.chat(request, context())), 'INFERENCE_3108');
    expect(error.headers).toEqual({ 'Retry-After': '12' });
    expect(error.status).toBe(429);
  });

  it('500 → INFERENCE_3105; 401 → 3105 naming the api_key setting; 400 context length → 3207', async () => {
    const { adapter } = await setup((incoming) => {
      const content = (incoming.body as ChatRequest).messages[0]!.content;
      if (content === 'auth') return { status: 401, json: { error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } } };
      if (content === 'long') return { status: 400, json: { error: { message: "This model's maximum context length is 10 tokens.", code: 'context_length_exceeded' } } };
      return { status: 500, text: 'Internal Server Error' };
    });
    const ask = (content: string) => adapter.chat({ ...request, messages: [{ role: 'user', content }] }, context());
    expectGatewayError(await rejection(ask('x')), 'INFERENCE_3105');
    expect(expectGatewayError(await rejection(ask('auth')), 'INFERENCE_3105').message).toContain('providers.acme.api_key');
    expectGatewayError(await rejection(ask('long')), 'INFERENCE_3207');
  });

  it('a 200 body that is not JSON → INFERENCE_3105', async () => {
    const { adapter } = await setup(() => ({ status: 200, text: '<html>proxy login</html>' }));
    expectGatewayError(await rejection(adapter.chat(request, context())), 'INFERENCE_3105');
  });

  it('an upstream that never answers → INFERENCE_3107 after timeout_ms', async () => {
    const { adapter } = await setup(() => ({ hang: true }), { timeoutMs: 300 });
    const started = Date.now();
    const error = expectGatewayError(await rejection(adapter.chat(request, context())), 'INFERENCE_3107');
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(error.message).toContain('300 ms');
  });

  it('connection refused → INFERENCE_3105 naming provider and origin', async () => {
    const port = await closedPort();
    const adapter = createOpenAiCompatibleAdapter({ id: 'acme', baseUrl: `http://127.0.0.1:${port}/v1`, headers: {}, timeoutMs: 2_000 }, harness.httpClient);
    const error = expectGatewayError(await rejection(adapter.chat(request, context())), 'INFERENCE_3105');
    expect(error.message).toContain('"acme"');
    expect(error.message).toContain(`http://127.0.0.1:${port}`);
    expect(error.message).toContain('connection refused');
  });

  it('a socket destroyed before the answer → INFERENCE_3105', async () => {
    const { adapter } = await setup(() => ({ destroy: true }));
    expectGatewayError(await rejection(adapter.chat(request, context())), 'INFERENCE_3105');
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
});

describe('openai-compatible adapter: chatStream', () => {
  it('always asks for usage, and yields hub chunks', async () => {
    const { upstream, adapter } = await setup(() => ({ sse: textStream }));
    const chunks = await collect(adapter.chatStream({ ...request, stream_options: { include_usage: false } }, context()));
    expect(upstream.requests[0]!.body).toMatchObject({ model: 'up-model', stream: true, stream_options: { include_usage: true } });
    expect(upstream.requests[0]!.headers['accept']).toBe('text/event-stream');
    expect(chunks.map((item) => item.choices[0]?.delta.content ?? '').join('')).toBe('Hello');
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });

    await collect(adapter.chatStream(request, context()));
    expect(upstream.requests[1]!.body.stream_options).toEqual({ include_usage: true });
  });

  it('passes each chunk on before the upstream has finished sending', async () => {
    const { upstream, adapter } = await setup(() => ({ sse: textStream, delayMs: 150 }));
    const stream = adapter.chatStream(request, context());
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    expect(upstream.requests[0]!.replyFinished).toBe(false);
    const rest: ChatChunk[] = [];
    for (let step = await iterator.next(); step.done !== true; step = await iterator.next()) rest.push(step.value);
    expect(upstream.requests[0]!.replyFinished).toBe(true);
    expect(rest.at(-1)?.usage?.total_tokens).toBe(8);
  });

  it('keeps connections for later requests after complete streams (body read past [DONE])', async () => {
    const { upstream, adapter } = await setup(() => ({ sse: textStream, delayMs: 5 }));
    for (let round = 0; round < 6; round += 1) await collect(adapter.chatStream(request, context()));
    expect(new Set(upstream.requests.map((sent) => sent.remotePort)).size).toBeLessThanOrEqual(2);
    expect(upstream.requests.every((sent) => !sent.clientClosedEarly)).toBe(true);
  });

  it('429 before the stream starts → INFERENCE_3108 with Retry-After', async () => {
    const { adapter } = await setup(() => ({ status: 429, json: { error: { message: 'slow down' } }, headers: { 'retry-after': '3' } }));
    const error = expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3108');
    expect(error.headers['Retry-After']).toBe('3');
  });

  it('500 before the stream starts → INFERENCE_3105', async () => {
    const { adapter } = await setup(() => ({ status: 500, json: { error: { message: 'boom' } } }));
    expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3105');
  });

  it('no headers within timeout_ms → INFERENCE_3107', async () => {
    const { adapter } = await setup(() => ({ hang: true }), { timeoutMs: 300 });
    expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3107');
  });

  it('a stream that goes quiet for longer than timeout_ms → INFERENCE_3107 (idle timeout)', async () => {
    const { adapter } = await setup(() => ({ sse: textStream, delayMs: 800 }), { timeoutMs: 300 });
    const received: ChatChunk[] = [];
    const error = await rejection(
      (async () => {
        for await (const item of adapter.chatStream(request, context())) received.push(item);
      })(),
    );
    expectGatewayError(error, 'INFERENCE_3107');
    expect(received).toHaveLength(1);
  });

  it('a slow consumer is not an idle upstream', async () => {
    const { adapter } = await setup(() => ({ sse: textStream }), { timeoutMs: 200 });
    const chunks: ChatChunk[] = [];
    for await (const item of adapter.chatStream(request, context())) {
      chunks.push(item);
      await new Promise((resolve) => setTimeout(resolve, 120));
    }
    expect(chunks.at(-1)?.usage?.total_tokens).toBe(8);
  });

  it('connection refused → INFERENCE_3105', async () => {
    const port = await closedPort();
    const adapter = createOpenAiCompatibleAdapter({ id: 'acme', baseUrl: `http://127.0.0.1:${port}/v1`, headers: {}, timeoutMs: 2_000 }, harness.httpClient);
    expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3105');
  });

  it('a socket destroyed mid-stream → INFERENCE_3105 after the chunks already sent', async () => {
    const { adapter } = await setup(() => ({ destroy: true, sseBefore: textStream.slice(0, 2) }));
    const received: ChatChunk[] = [];
    const error = await rejection(
      (async () => {
        for await (const item of adapter.chatStream(request, context())) received.push(item);
      })(),
    );
    expectGatewayError(error, 'INFERENCE_3105');
    expect(received.map((item) => item.choices[0]?.delta.content ?? '').join('')).toBe('Hel');
  });

  it('a stream that ends without finish_reason, [DONE] or usage → INFERENCE_3105 "ended early"', async () => {
    const { adapter } = await setup(() => ({ sse: textStream.slice(0, 3), sseDone: false }));
    const error = expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3105');
    expect(error.message).toMatch(/ended early/);
  });

  it('a finished stream without usage but with [DONE] is fine', async () => {
    const { adapter } = await setup(() => ({ sse: textStream.slice(0, 4) }));
    const chunks = await collect(adapter.chatStream(request, context()));
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('a data line that is not JSON → INFERENCE_3105', async () => {
    const { adapter } = await setup(() => ({ rawSse: `data: ${textStream[0]}\n\ndata: {"id":"x","choices":[{\n\ndata: [DONE]\n\n` }));
    expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3105');
  });

  it('an in-stream error event → INFERENCE_3105 with the provider message in details', async () => {
    const { adapter } = await setup(() => ({ rawSse: `data: ${textStream[0]}\n\nevent: error\ndata: {"error":{"message":"overloaded","code":"server_busy"}}\n\n` }));
    const error = expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3105');
    expect(error.details).toMatchObject({ upstream_message: 'overloaded', upstream_code: 'server_busy' });
  });

  it('a JSON error body with status 200 where a stream was expected → INFERENCE_3105', async () => {
    const { adapter } = await setup(() => ({ json: { error: { message: 'no credits' } } }));
    const error = expectGatewayError(await rejection(collect(adapter.chatStream(request, context()))), 'INFERENCE_3105');
    expect(error.details?.['upstream_message']).toBe('no credits');
  });

  it('aborting mid-stream closes the upstream connection and rejects with the signal reason', async () => {
    const { upstream, adapter } = await setup(() => ({ sse: [...textStream, ...textStream, ...textStream], delayMs: 100 }), { timeoutMs: 10_000 });
    const controller = new AbortController();
    const received: ChatChunk[] = [];
    const reason = new Error('client went away');
    const error = await rejection(
      (async () => {
        for await (const item of adapter.chatStream(request, context(controller.signal))) {
          received.push(item);
          if (received.length === 1) controller.abort(reason);
        }
      })(),
    );
    expect(error).toBe(reason);
    await upstream.requests[0]!.closed;
    expect(upstream.requests[0]!.clientClosedEarly).toBe(true);
    expect(received).toHaveLength(1);
  });

  it('a consumer that stops early releases the upstream request', async () => {
    const { upstream, adapter } = await setup(() => ({ sse: [...textStream, ...textStream], delayMs: 100 }), { timeoutMs: 10_000 });
    for await (const item of adapter.chatStream(request, context())) {
      expect(item).toBeDefined();
      break;
    }
    await upstream.requests[0]!.closed;
    expect(upstream.requests[0]!.clientClosedEarly).toBe(true);
  });
});

describe('openai-compatible adapter: embed', () => {
  it('posts float embeddings and decodes base64 answers in index order', async () => {
    const base64 = (values: number[]) => Buffer.from(new Float32Array(values).buffer).toString('base64');
    const { upstream, adapter } = await setup(() => ({
      json: {
        object: 'list',
        data: [
          { object: 'embedding', index: 1, embedding: base64([0.5, -0.25]) },
          { object: 'embedding', index: 0, embedding: [0.125, 1] },
        ],
        usage: { prompt_tokens: 6, total_tokens: 6 },
      },
    }));
    const result = await adapter.embed!({ input: ['a', 'b'], dimensions: 2 }, context());
    expect(result).toEqual({ vectors: [[0.125, 1], [0.5, -0.25]], promptTokens: 6 });
    expect(upstream.requests[0]!.path).toBe('/v1/embeddings');
    expect(upstream.requests[0]!.body).toEqual({ model: 'up-model', input: ['a', 'b'], encoding_format: 'float', dimensions: 2 });
  });

  it('classifies upstream errors like chat does', async () => {
    const { adapter } = await setup(() => ({ status: 404, json: { error: { message: 'model not found', code: 'model_not_found' } } }));
    const error = expectGatewayError(await rejection(adapter.embed!({ input: ['a'] }, context())), 'INFERENCE_3105');
    expect(error.message).toContain('upstream_model');
  });
});

describe('openai-compatible adapter replaying recorded streams over HTTP', () => {
  const files = ['openai-chat', 'openai-compatible'].flatMap((folder) => [...listRecorded(folder, '.sse'), ...listRecorded(folder, '.chunks.jsonl')]);

  /** The same file through the normalizer directly, without HTTP (the reference). */
  async function direct(text: string): Promise<{ chunks: ChatChunk[]; error?: unknown }> {
    const normalizer = new ChunkNormalizer({ providerId: 'acme', id: 'chatcmpl-req-1', created: 0, model: 'up-model' });
    const chunks: ChatChunk[] = [];
    const events = decodeSse(
      (async function* () {
        yield new TextEncoder().encode(text);
      })(),
    );
    try {
      for (;;) {
        const step = await events.next();
        if (step.done === true) {
          chunks.push(...normalizer.end(step.value.sawDone));
          return { chunks };
        }
        chunks.push(...normalizer.push(JSON.parse(step.value.data), step.value.event));
      }
    } catch (error) {
      return { chunks, error };
    }
  }

  for (const file of files) {
    it(`${file}: split into random small TCP writes, same hub chunks as decoding the file directly`, async () => {
      const text = file.endsWith('.sse') ? readRecorded(file) : sseFromChunksFile(file);
      const { adapter } = await setup(() => ({ rawSse: text, randomChunks: true, seed: 7 }));
      const expected = await direct(text);
      const received: ChatChunk[] = [];
      let error: unknown;
      try {
        for await (const item of adapter.chatStream(request, context())) received.push(item);
      } catch (caught) {
        error = caught;
      }
      expect(received).toEqual(expected.chunks);
      if (expected.error === undefined) {
        expect(error).toBeUndefined();
      } else {
        expectGatewayError(error, 'INFERENCE_3105');
        expect((error as GatewayError).details).toEqual((expected.error as GatewayError).details);
      }
    });
  }
});

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
