import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { normalizeChatResponse, normalizeEmbeddings, normalizeUsage } from '../../../src/providers/openai-compatible/normalize.js';
import { ChunkNormalizer } from '../../../src/providers/openai-compatible/normalize-stream.js';
import { upstreamChatChunkSchema, upstreamChatResponseSchema } from '../../../src/providers/openai-compatible/wire.js';
import { decodeSse } from '../../../src/providers/sse-decode.js';
import type { ChatChunk, ChatUsage } from '../../../src/translate/chat/types.js';
import { listRecorded, payloadsFromChunksFile, readRecorded, readRecordedJson } from '../../helpers/recorded.js';

const fallbacks = { providerId: 'acme', id: 'chatcmpl-fallback', created: 1_700_000_000, model: 'fallback-model' };

/** A recorded stream as (payload, event name) pairs plus whether it ended with [DONE]. */
async function recordedEvents(file: string): Promise<{ events: Array<{ payload: unknown; event?: string }>; sawDone: boolean }> {
  if (file.endsWith('.chunks.jsonl')) {
    // The recording format drops [DONE]; a replay appends it (README).
    return { events: payloadsFromChunksFile(file).map((line) => ({ payload: JSON.parse(line) as unknown })), sawDone: true };
  }
  async function* body() {
    yield new TextEncoder().encode(readRecorded(file));
  }
  const events: Array<{ payload: unknown; event?: string }> = [];
  const generator = decodeSse(body());
  for (;;) {
    const step = await generator.next();
    if (step.done === true) return { events, sawDone: step.value.sawDone };
    events.push({ payload: JSON.parse(step.value.data) as unknown, ...(step.value.event === undefined ? {} : { event: step.value.event }) });
  }
}

/** Runs a recorded stream through the normalizer; `error` is set when it threw. */
async function normalizeRecorded(file: string): Promise<{ chunks: ChatChunk[]; error?: unknown; raw: unknown[] }> {
  const { events, sawDone } = await recordedEvents(file);
  const normalizer = new ChunkNormalizer(fallbacks);
  const chunks: ChatChunk[] = [];
  try {
    for (const { payload, event } of events) chunks.push(...normalizer.push(payload, event));
    chunks.push(...normalizer.end(sawDone));
  } catch (error) {
    return { chunks, error, raw: events.map((event) => event.payload) };
  }
  return { chunks, raw: events.map((event) => event.payload) };
}

interface FoldedChoice {
  text: string;
  reasoning: string;
  refusal: string;
  tools: Map<number, { id?: string; name?: string; arguments: string; deltas: number }>;
  finish: string | null;
  roles: number;
}

/** The test's own reducer over hub chunks (openai-node style). */
function fold(chunks: ChatChunk[]) {
  const choices = new Map<number, FoldedChoice>();
  const usages: Array<{ position: number; usage: ChatUsage }> = [];
  chunks.forEach((chunk, position) => {
    if (chunk.usage) usages.push({ position, usage: chunk.usage });
    for (const choice of chunk.choices) {
      let folded = choices.get(choice.index);
      if (folded === undefined) {
        folded = { text: '', reasoning: '', refusal: '', tools: new Map(), finish: null, roles: 0 };
        choices.set(choice.index, folded);
        expect(choice.delta.role).toBe('assistant');
      }
      if (choice.delta.role !== undefined) folded.roles += 1;
      folded.text += choice.delta.content ?? '';
      folded.reasoning += choice.delta.reasoning_content ?? '';
      folded.refusal += choice.delta.refusal ?? '';
      for (const call of choice.delta.tool_calls ?? []) {
        const tool = folded.tools.get(call.index);
        if (tool === undefined) {
          expect(call.id).toBeTruthy();
          expect(call.type).toBe('function');
          folded.tools.set(call.index, { id: call.id, name: call.function?.name, arguments: call.function?.arguments ?? '', deltas: 1 });
        } else {
          // id, type and name only on the first delta of a call.
          expect(call.id).toBeUndefined();
          expect(call.function?.name).toBeUndefined();
          tool.arguments += call.function?.arguments ?? '';
          tool.deltas += 1;
        }
      }
      if (choice.finish_reason !== null) folded.finish = choice.finish_reason;
    }
  });
  return { choices, usages };
}

type RawRecord = Record<string, any>;

/** What the raw upstream payloads say, read naively (independent of the normalizer). */
function reference(raw: unknown[]) {
  const choices = new Map<number, { text: string; reasoning: string; refusal: string; toolNames: string[]; toolIds: Set<string>; args: string; finish: string | null }>();
  let usage: RawRecord | undefined;
  for (const payload of raw as RawRecord[]) {
    if (payload['error']) continue;
    const payloadUsage = payload['usage'] ?? payload['x_groq']?.['usage'];
    if (payloadUsage) usage = payloadUsage;
    for (const [position, choice] of ((payload['choices'] ?? []) as RawRecord[]).entries()) {
      const index = (choice['index'] as number | undefined) ?? position;
      if (!choices.has(index)) choices.set(index, { text: '', reasoning: '', refusal: '', toolNames: [], toolIds: new Set(), args: '', finish: null });
      const entry = choices.get(index)!;
      const delta = (choice['delta'] ?? {}) as RawRecord;
      if (typeof delta['content'] === 'string') entry.text += delta['content'];
      if (typeof delta['reasoning_content'] === 'string' && delta['reasoning_content'] !== '') entry.reasoning += delta['reasoning_content'];
      else if (typeof delta['reasoning'] === 'string') entry.reasoning += delta['reasoning'];
      if (typeof delta['refusal'] === 'string') entry.refusal += delta['refusal'];
      for (const call of (delta['tool_calls'] ?? []) as RawRecord[]) {
        if (call['function']?.['name']) entry.toolNames.push(call['function']['name']);
        if (call['id']) entry.toolIds.add(call['id']);
        entry.args += call['function']?.['arguments'] ?? '';
      }
      if (choice['finish_reason']) entry.finish = choice['finish_reason'];
    }
  }
  return { choices, usage };
}

describe('normalizeUsage', () => {
  it('always builds the full usage shape', () => {
    expect(normalizeUsage({ prompt_tokens: 3, completion_tokens: 4 })).toEqual({
      prompt_tokens: 3,
      completion_tokens: 4,
      total_tokens: 7,
      cached_tokens: 0,
      reasoning_tokens: 0,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    expect(normalizeUsage(null)).toBeUndefined();
    expect(normalizeUsage({})).toBeUndefined();
  });

  it('reads DeepSeek prompt_cache_hit_tokens and reasoning_tokens', () => {
    const usage = normalizeUsage({ prompt_tokens: 339, completion_tokens: 83, total_tokens: 422, prompt_cache_hit_tokens: 320, completion_tokens_details: { reasoning_tokens: 39 } });
    expect(usage).toMatchObject({ cached_tokens: 320, prompt_tokens_details: { cached_tokens: 320 }, reasoning_tokens: 39, total_tokens: 422 });
  });

  it('folds reasoning into completion when the vendor counts it outside (total gives it away)', () => {
    const usage = normalizeUsage({ prompt_tokens: 291, completion_tokens: 26, total_tokens: 513, completion_tokens_details: { reasoning_tokens: 196 } });
    expect(usage).toMatchObject({ prompt_tokens: 291, completion_tokens: 222, total_tokens: 513, reasoning_tokens: 196 });
    // OpenAI-style (reasoning inside completion) stays as is.
    expect(normalizeUsage({ prompt_tokens: 18, completion_tokens: 345, total_tokens: 363, completion_tokens_details: { reasoning_tokens: 315 } })).toMatchObject({ completion_tokens: 345, total_tokens: 363 });
  });
});

describe('normalizeChatResponse', () => {
  it('fills what the upstream leaves out and maps the odd spellings', () => {
    const response = normalizeChatResponse(
      {
        choices: [{ message: { content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], reasoning: 'why', tool_calls: [{ function: { name: 'f', arguments: { x: 1 } } }] } }],
      },
      fallbacks,
    );
    expect(response).toMatchObject({ id: 'chatcmpl-fallback', object: 'chat.completion', created: fallbacks.created, model: 'fallback-model', system_fingerprint: null });
    expect(response.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'ab', reasoning_content: 'why', tool_calls: [{ id: 'call_chatcmpl-fallback_0_0', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] },
      finish_reason: 'tool_calls',
      logprobs: null,
    });
    expect(response.usage.total_tokens).toBe(0);
  });

  it('throws INFERENCE_3105 for an unreadable body or an in-body error', () => {
    expect(() => normalizeChatResponse({ choices: 'nope' }, fallbacks)).toThrow(GatewayError);
    expect(() => normalizeChatResponse({ choices: [] }, fallbacks)).toThrow(GatewayError);
    try {
      normalizeChatResponse({ error: { message: 'Provider returned error', code: 502 }, choices: [] }, fallbacks);
      expect.unreachable();
    } catch (error) {
      expect((error as GatewayError).code).toBe('INFERENCE_3105');
      expect((error as GatewayError).details).toMatchObject({ upstream_message: 'Provider returned error' });
    }
  });
});

describe('ChunkNormalizer (synthetic quirks)', () => {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices, ...extra });

  it('numbers tool calls without index by order of first id (Mistral)', () => {
    const normalizer = new ChunkNormalizer(fallbacks);
    const out = [
      ...normalizer.push(chunk([{ index: 0, delta: { tool_calls: [{ id: 'a', function: { name: 'one', arguments: '{}' } }] } }])),
      ...normalizer.push(chunk([{ index: 0, delta: { tool_calls: [{ id: 'b', function: { name: 'two', arguments: '{"k":' } }] } }])),
      ...normalizer.push(chunk([{ index: 0, delta: { tool_calls: [{ function: { arguments: '1}' } }] }, finish_reason: 'tool_calls' }], { usage: { prompt_tokens: 1, completion_tokens: 2 } })),
      ...normalizer.end(false),
    ];
    const calls = out.flatMap((item) => item.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    expect(calls).toEqual([
      { index: 0, id: 'a', type: 'function', function: { name: 'one', arguments: '{}' } },
      { index: 1, id: 'b', type: 'function', function: { name: 'two', arguments: '{"k":' } },
      { index: 1, function: { arguments: '1}' } },
    ]);
  });

  it('holds running-total usage back and sends the last one once', () => {
    const normalizer = new ChunkNormalizer(fallbacks);
    const first = normalizer.push(chunk([{ index: 0, delta: { content: 'a' } }], { usage: { prompt_tokens: 5, completion_tokens: 1 } }));
    const second = normalizer.push(chunk([{ index: 0, delta: { content: 'b' }, finish_reason: 'stop' }], { usage: { prompt_tokens: 5, completion_tokens: 2 } }));
    expect(first[0]?.usage).toBeUndefined();
    expect(second[0]?.usage?.completion_tokens).toBe(2);
    expect(normalizer.end(false)).toEqual([]);
  });

  it('flushes held usage as a usage-only chunk at the end', () => {
    const normalizer = new ChunkNormalizer(fallbacks);
    normalizer.push(chunk([{ index: 0, delta: { content: 'a' }, finish_reason: null }], { usage: { prompt_tokens: 5, completion_tokens: 1 } }));
    normalizer.push(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
    const flushed = normalizer.end(true);
    expect(flushed).toHaveLength(1);
    expect(flushed[0]).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 1 } });
  });

  it('reads Groq x_groq.usage', () => {
    const normalizer = new ChunkNormalizer(fallbacks);
    const out = normalizer.push(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }], { x_groq: { usage: { prompt_tokens: 9, completion_tokens: 3 } } }));
    expect(out[0]?.usage?.total_tokens).toBe(12);
  });

  it('throws "ended early" for a stream without finish_reason, or without both [DONE] and usage', () => {
    const noFinish = new ChunkNormalizer(fallbacks);
    noFinish.push(chunk([{ index: 0, delta: { content: 'a' } }]));
    expect(() => noFinish.end(true)).toThrow(/ended early/);

    const noDoneNoUsage = new ChunkNormalizer(fallbacks);
    noDoneNoUsage.push(chunk([{ index: 0, delta: { content: 'a' }, finish_reason: 'stop' }]));
    expect(() => noDoneNoUsage.end(false)).toThrow(/ended early/);

    const doneNoUsage = new ChunkNormalizer(fallbacks);
    doneNoUsage.push(chunk([{ index: 0, delta: { content: 'a' }, finish_reason: 'stop' }]));
    expect(doneNoUsage.end(true)).toEqual([]);
  });

  it('throws INFERENCE_3105 for an error object, an error event, or a chunk it cannot read', () => {
    const normalizer = new ChunkNormalizer(fallbacks);
    expect(() => normalizer.push({ error: { message: 'boom' } })).toThrow(GatewayError);
    expect(() => normalizer.push({ anything: true }, 'error')).toThrow(GatewayError);
    expect(() => normalizer.push({ choices: 'nope' })).toThrow(GatewayError);
  });

  it('drops chunks that carry nothing and announces the role once', () => {
    const normalizer = new ChunkNormalizer(fallbacks);
    expect(normalizer.push(chunk([{ index: 0, delta: { role: 'assistant', content: '' } }]))).toHaveLength(1);
    expect(normalizer.push(chunk([{ index: 0, delta: { role: 'assistant', content: '', reasoning: null } }]))).toEqual([]);
    expect(normalizer.push(chunk([{ index: 0, delta: { role: 'assistant', content: 'x' } }]))[0]?.choices[0]?.delta).toEqual({ content: 'x' });
  });
});

describe('normalize over recorded OpenAI-compatible responses', () => {
  const nonStreamFiles = [...listRecorded('openai-chat', '.json'), ...listRecorded('openai-compatible', '.json')];
  const streamFiles = ['openai-chat', 'openai-compatible'].flatMap((folder) => [...listRecorded(folder, '.sse'), ...listRecorded(folder, '.chunks.jsonl')]);
  const failingStreams = new Set(['openai-compatible/groq-stream-midstream-error.sse', 'openai-compatible/openrouter-stream-error-in-chunk.sse']);

  it('finds the recorded files', () => {
    expect(nonStreamFiles.length).toBeGreaterThanOrEqual(6);
    expect(streamFiles.length).toBeGreaterThanOrEqual(25);
  });

  for (const file of nonStreamFiles) {
    it(`${file}: non-stream → hub ChatResponse`, () => {
      const raw = readRecordedJson<RawRecord>(file);
      const response = normalizeChatResponse(raw, fallbacks);
      expect(response.id).toBe(raw['id']);
      expect(response.model).toBe(raw['model']);
      expect(response.choices).toHaveLength(raw['choices'].length);
      for (const [position, choice] of response.choices.entries()) {
        const upstream = raw['choices'][position];
        const upstreamContent = upstream.message.content;
        const upstreamTools = (upstream.message.tool_calls ?? []) as RawRecord[];
        expect(choice.message.content).toBe(upstreamContent === '' && upstreamTools.length > 0 ? null : upstreamContent ?? null);
        expect(choice.finish_reason).toBe(upstream.finish_reason);
        expect(choice.message.reasoning_content).toBe(upstream.message.reasoning_content ?? upstream.message.reasoning);
        expect(choice.message.tool_calls?.map((call) => [call.id, call.function.name]) ?? []).toEqual(upstreamTools.map((call) => [call['id'], call['function']['name']]));
        for (const call of choice.message.tool_calls ?? []) expect(() => JSON.parse(call.function.arguments)).not.toThrow();
      }
      expect(response.usage.prompt_tokens).toBe(raw['usage'].prompt_tokens);
      expect(response.usage.completion_tokens).toBe(raw['usage'].completion_tokens);
      expect(response.usage.total_tokens).toBe(raw['usage'].total_tokens);
      expect(response.usage.reasoning_tokens).toBe(raw['usage'].completion_tokens_details?.reasoning_tokens ?? 0);
      expect(JSON.stringify(response)).not.toMatch(/"(annotations|service_tier|prompt_cache_miss_tokens)"/);
    });
  }

  for (const file of streamFiles) {
    it(`${file}: stream → hub chunks that fold to what the upstream sent`, async () => {
      const { chunks, error, raw } = await normalizeRecorded(file);
      const folded = fold(chunks);
      const expected = reference(raw);

      // Passed on one upstream event at a time, never more chunks than events (+ a flushed usage).
      expect(chunks.length).toBeLessThanOrEqual(raw.length + 1);
      expect(new Set(chunks.map((item) => item.id)).size).toBeLessThanOrEqual(1);
      expect(JSON.stringify(chunks)).not.toMatch(/"(obfuscation|x_groq|citations|reasoning_details|native_finish_reason|sla_metrics|channel)"/);
      for (const item of chunks) expect(item.choices.length > 0 || item.usage != null).toBe(true);

      for (const [index, want] of expected.choices) {
        const got = folded.choices.get(index);
        expect(got, `choice ${index}`).toBeDefined();
        expect(got!.roles).toBe(1);
        expect(got!.text).toBe(want.text);
        expect(got!.reasoning).toBe(want.reasoning);
        expect(got!.refusal).toBe(want.refusal);
        const tools = [...got!.tools.entries()].sort(([left], [right]) => left - right).map(([, tool]) => tool);
        expect(tools.map((tool) => tool.name)).toEqual(want.toolNames);
        expect(tools.length).toBe(want.toolIds.size);
        expect(tools.map((tool) => tool.arguments).join('')).toBe(want.args);
        if (error === undefined) {
          for (const tool of tools) expect(() => JSON.parse(tool.arguments)).not.toThrow();
          expect(got!.finish).toBe(want.finish);
        }
      }

      if (failingStreams.has(file)) {
        expect(error).toBeInstanceOf(GatewayError);
        expect((error as GatewayError).code).toBe('INFERENCE_3105');
        expect((error as GatewayError).details?.['upstream_message']).toBeTypeOf('string');
        return;
      }
      expect(error).toBeUndefined();
      // Usage exactly once, on the last chunk, with the upstream's final numbers.
      expect(folded.usages).toHaveLength(1);
      expect(folded.usages[0]!.position).toBe(chunks.length - 1);
      const usage = folded.usages[0]!.usage;
      expect(usage.prompt_tokens).toBe(expected.usage!['prompt_tokens']);
      expect(usage.total_tokens).toBe(expected.usage!['total_tokens']);
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
      expect(usage.reasoning_tokens).toBe(expected.usage!['completion_tokens_details']?.['reasoning_tokens'] ?? 0);
      expect(usage.cached_tokens).toBe(expected.usage!['prompt_tokens_details']?.['cached_tokens'] ?? expected.usage!['prompt_cache_hit_tokens'] ?? 0);
    });
  }

  it('deepseek-stream-tool-call: cached and reasoning tokens from the finish chunk', async () => {
    const { chunks } = await normalizeRecorded('openai-compatible/deepseek-stream-tool-call.chunks.jsonl');
    const last = chunks.at(-1)!;
    expect(last.choices[0]?.finish_reason).toBe('tool_calls');
    expect(last.usage).toMatchObject({ prompt_tokens: 339, completion_tokens: 83, cached_tokens: 320, reasoning_tokens: 39 });
  });

  it('xai-stream-tool-call: completion includes the reasoning its total counts', async () => {
    const { chunks } = await normalizeRecorded('openai-compatible/xai-stream-tool-call.chunks.jsonl');
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 291, completion_tokens: 222, total_tokens: 513, cached_tokens: 290, reasoning_tokens: 196 });
  });

  it('mistral-stream-tool-call: index 0 and type function although the upstream sent neither', async () => {
    const { chunks } = await normalizeRecorded('openai-compatible/mistral-stream-tool-call.chunks.jsonl');
    const call = chunks.flatMap((item) => item.choices.flatMap((choice) => choice.delta.tool_calls ?? []))[0];
    expect(call).toEqual({ index: 0, id: 'gSIMJiOkT', type: 'function', function: { name: 'weather', arguments: '{"location": "San Francisco"}' } });
  });

  it('qwen-dashscope-stream-tool-call: id "" continuations join the first call', async () => {
    const { chunks } = await normalizeRecorded('openai-compatible/qwen-dashscope-stream-tool-call.chunks.jsonl');
    const tools = fold(chunks).choices.get(0)!.tools;
    expect([...tools.values()]).toEqual([{ id: 'call_eee11723464a4b9eb8cee71d', name: 'weather', arguments: '{"location": "San Francisco"}', deltas: 3 }]);
  });

  it('perplexity-stream-citations: running totals are held; the done chunk carries the final usage', async () => {
    const { chunks } = await normalizeRecorded('openai-compatible/perplexity-stream-citations.chunks.jsonl');
    expect(chunks.filter((item) => item.usage)).toHaveLength(1);
    expect(chunks.at(-1)).toMatchObject({ object: 'chat.completion.chunk', usage: { prompt_tokens: 10, completion_tokens: 336 } });
  });

  it('openrouter-stream-reasoning: usage after the finish chunk is final', async () => {
    const { chunks } = await normalizeRecorded('openai-compatible/openrouter-stream-reasoning.sse');
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 43, completion_tokens: 36, reasoning_tokens: 13 });
  });

  it('groq-stream-midstream-error: reasoning streams, then event: error → 3105 tool_use_failed', async () => {
    const { chunks, error } = await normalizeRecorded('openai-compatible/groq-stream-midstream-error.sse');
    expect(fold(chunks).choices.get(0)!.reasoning.length).toBeGreaterThan(100);
    expect((error as GatewayError).details).toMatchObject({ provider: 'acme', upstream_code: 'tool_use_failed' });
  });

  it('openrouter-stream-error-in-chunk: the error chunk → 3105 with its message', async () => {
    const { error } = await normalizeRecorded('openai-compatible/openrouter-stream-error-in-chunk.sse');
    expect((error as GatewayError).details).toMatchObject({ upstream_message: 'Token limit reached', upstream_code: 400 });
  });

  it('stream-logprobs: logprobs pass through per delta', async () => {
    const { chunks } = await normalizeRecorded('openai-chat/stream-logprobs.sse');
    const tokens = chunks.flatMap((item) => item.choices.flatMap((choice) => choice.logprobs?.content ?? []));
    expect(tokens.map((token) => token.token).join('')).toBe(fold(chunks).choices.get(0)!.text);
    expect(tokens[0]).toMatchObject({ token: 'Foo', bytes: [70, 111, 111], top_logprobs: [] });
  });

  it('stream-n3-choices: three choices fold separately', async () => {
    const { chunks } = await normalizeRecorded('openai-chat/stream-n3-choices.sse');
    const folded = fold(chunks);
    expect([...folded.choices.keys()].sort()).toEqual([0, 1, 2]);
    for (const choice of folded.choices.values()) expect(() => JSON.parse(choice.text)).not.toThrow();
  });
});

describe('normalizeEmbeddings over recorded responses', () => {

  it('openai-float-trimmed: floats in index order and prompt tokens', () => {
    const raw = readRecordedJson<RawRecord>('embeddings/openai-float-trimmed.json');
    const result = normalizeEmbeddings(raw, raw['data'].length, 'acme');
    expect(result.vectors).toEqual((raw['data'] as RawRecord[]).map((item) => item['embedding']));
    expect(result.promptTokens).toBe(raw['usage'].prompt_tokens);
  });

  for (const file of ['embeddings/openai-base64.json', 'embeddings/openai-base64-batch.json', 'embeddings/voyage-base64.json']) {
    it(`${file}: base64 little-endian float32 decodes`, () => {
      const raw = readRecordedJson<RawRecord>(file);
      const result = normalizeEmbeddings(raw, raw['data'].length, 'acme');
      for (const [position, vector] of result.vectors.entries()) {
        expect(vector.length).toBe(Buffer.from(raw['data'][position].embedding as string, 'base64').length / 4);
        expect(vector.every((value) => Number.isFinite(value) && Math.abs(value) < 1)).toBe(true);
        // Embeddings from these models are unit length.
        expect(Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0))).toBeCloseTo(1, 2);
      }
    });
  }

  it('sorts by index and rejects a count mismatch', () => {
    const body = { data: [{ index: 1, embedding: [2] }, { index: 0, embedding: [1] }], usage: { prompt_tokens: 4 } };
    expect(normalizeEmbeddings(body, 2, 'acme')).toEqual({ vectors: [[1], [2]], promptTokens: 4 });
    expect(() => normalizeEmbeddings(body, 3, 'acme')).toThrow(GatewayError);
  });
});

describe('stream chunks read without the schema (wire.ts fast path)', () => {
  const streamFiles = ['openai-chat', 'openai-compatible'].flatMap((folder) => [...listRecorded(folder, '.sse'), ...listRecorded(folder, '.chunks.jsonl')]);

  /** Each payload through a fresh normalizer as sent and as the full schema reads it: the chunks (or the error) must be the same. */
  function sameAsSchema(payloads: unknown[]): void {
    const direct = new ChunkNormalizer(fallbacks);
    const viaSchema = new ChunkNormalizer(fallbacks);
    for (const payload of payloads) {
      const parsed = upstreamChatChunkSchema.safeParse(payload);
      const run = (normalizer: ChunkNormalizer, input: unknown) => {
        try {
          return { chunks: normalizer.push(input) };
        } catch (error) {
          return { error: (error as GatewayError).code };
        }
      };
      const expected = parsed.success ? run(viaSchema, parsed.data) : { error: 'INFERENCE_3105' };
      expect(run(direct, payload), JSON.stringify(payload)).toEqual(expected);
    }
  }

  for (const file of streamFiles) {
    it(`${file}: the same hub chunks as through the schema`, async () => {
      const { events } = await recordedEvents(file);
      sameAsSchema(events.filter((event) => event.event !== 'error').map((event) => event.payload));
    });
  }

  it('usage objects of every odd shape read as the schema reads them', () => {
    const base = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [] };
    const usages: unknown[] = [
      { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
      { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 }, extra: 'x' },
      { prompt_tokens: 12, completion_tokens: null, total_tokens: 20, prompt_cache_hit_tokens: 6 },
      { prompt_tokens: '12', completion_tokens: 3, total_tokens: 15 },
      { prompt_tokens: 12, completion_tokens: 3, total_tokens: Infinity },
      { prompt_tokens: 12, completion_tokens: 3, prompt_tokens_details: [5] },
      { prompt_tokens: 12, completion_tokens: 3, prompt_tokens_details: { cached_tokens: '5' } },
      { prompt_tokens: 12, completion_tokens: 3, completion_tokens_details: 'none' },
      { prompt_tokens: 12, completion_tokens: 3, completion_tokens_details: null, prompt_tokens_details: null },
      [12, 3],
      'usage',
      null,
      {},
    ];
    sameAsSchema([
      { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] },
      ...usages.map((usage) => ({ ...base, usage })),
      ...usages.map((usage) => ({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage })),
    ]);
  });
});

describe('whole answers read without the schema (wire.ts fast path)', () => {
  const files = [...listRecorded('openai-chat', '.json'), ...listRecorded('openai-compatible', '.json')];

  /** The hub answer (or the error code) for the body as sent and as the full schema reads it: they must be the same. */
  function sameAsSchema(body: unknown): void {
    const run = (input: unknown) => {
      try {
        return { response: normalizeChatResponse(input, fallbacks) };
      } catch (error) {
        return { error: (error as GatewayError).code };
      }
    };
    const parsed = upstreamChatResponseSchema.safeParse(body);
    // An in-body error is classified from the body as sent, whichever path read it.
    const expected = parsed.success && parsed.data.error == null ? run(parsed.data) : run(body);
    expect(run(body), JSON.stringify(body)).toEqual(expected);
    if (!parsed.success) expect(run(body)).toEqual({ error: 'INFERENCE_3105' });
  }

  for (const file of files) it(`${file}: the same hub answer as through the schema`, () => sameAsSchema(readRecordedJson(file)));

  it('odd shapes read as the schema reads them', () => {
    const message = { role: 'assistant', content: 'Hi' };
    const base = { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } };
    const variants: unknown[] = [
      base,
      { ...base, extra: { nested: true }, system_fingerprint: 'fp', service_tier: 'default' },
      { ...base, created: 'yesterday' },
      { ...base, id: 7 },
      { ...base, model: null, system_fingerprint: 3 },
      { ...base, usage: { prompt_tokens: '3', completion_tokens: 1 } },
      { ...base, usage: null },
      { ...base, error: null },
      { ...base, choices: [{ index: -1, message, finish_reason: 'stop' }] },
      { ...base, choices: [{ index: 0.5, message, finish_reason: 'stop' }] },
      { ...base, choices: [{ message: { role: 'assistant', content: [{ type: 'text', text: 'Hi' }] }, finish_reason: 'end_turn' }] },
      { ...base, choices: [{ index: 0, message: { content: '', reasoning: 'think', refusal: null }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, message: { content: 1 }, finish_reason: 'stop' }] },
      { ...base, choices: [{ index: 0, message: [], finish_reason: 'stop' }] },
      { ...base, choices: [{ index: 0, message, finish_reason: 5 }] },
      { ...base, choices: [{ index: 0, message, finish_reason: 'stop', logprobs: { content: [] } }] },
      { ...base, choices: [{ index: 0, message: { ...message, tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '{}' } }] }, finish_reason: 'tool_calls' }] },
      { ...base, choices: [{ index: 0, message: { ...message, tool_calls: [{ id: 5, function: { name: 'f', arguments: { a: 1 } } }] }, finish_reason: 'tool_calls' }] },
      { ...base, choices: [] },
      { ...base, choices: null },
      [],
      'text',
    ];
    for (const body of variants) sameAsSchema(body);
  });
});
