import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createLocalAdapter } from '../../../../src/providers/local/adapter.js';
import type { CallContext } from '../../../../src/providers/types.js';
import type { ChatChunk, ChatRequest } from '../../../../src/translate/chat/types.js';

const adapter = createLocalAdapter('local');
const context = (upstreamModel: string, signal = new AbortController().signal): CallContext => ({ signal, upstreamModel, requestId: 'req_test' });
const chatRequest: ChatRequest = { model: 'local-echo', messages: [{ role: 'user', content: 'one two three four five six seven eight' }] };

describe('createLocalAdapter', () => {
  it('identifies as the local kind', () => {
    expect(adapter).toMatchObject({ kind: 'local', id: 'local' });
  });

  it('answers chat with a fresh id and the current time', async () => {
    const before = Math.floor(Date.now() / 1000);
    const first = await adapter.chat(chatRequest, context('local-echo'));
    const second = await adapter.chat(chatRequest, context('local-echo'));
    expect(first.id).toMatch(/^chatcmpl-[0-9a-f]{24}$/);
    expect(first.id).not.toBe(second.id);
    expect(first.created).toBeGreaterThanOrEqual(before);
    expect(first.choices[0]!.message.content).toBe('one two three four five six seven eight');
  });

  it('streams chat chunks sharing one id', async () => {
    const chunks: ChatChunk[] = [];
    for await (const chunk of adapter.chatStream(chatRequest, context('local-echo'))) chunks.push(chunk);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('one two three four five six seven eight');
  });

  it('stops streaming once the signal aborts', async () => {
    const controller = new AbortController();
    const chunks: ChatChunk[] = [];
    for await (const chunk of adapter.chatStream(chatRequest, context('local-echo', controller.signal))) {
      chunks.push(chunk);
      if (chunks.length === 3) controller.abort();
    }
    expect(chunks).toHaveLength(3);
  });

  it('embeds every input in order, honouring dimensions', async () => {
    const result = await adapter.embed!({ input: ['alpha', 'beta'], dimensions: 32 }, context('local-embed'));
    expect(result.vectors).toHaveLength(2);
    expect(result.vectors.every((vector) => vector.length === 32)).toBe(true);
    expect(result.vectors[0]).not.toEqual(result.vectors[1]);
    expect(result.promptTokens).toBe(2);
  });

  it('reranks with BM25', async () => {
    const result = await adapter.rerank!({ query: 'fox', documents: ['a dog', 'a fox'], top_n: 1 }, context('local-rerank'));
    expect(result.results).toEqual([{ index: 1, relevance_score: expect.any(Number) }]);
    expect(result.searchUnits).toBe(1);
  });

  it('generates n PNG images of the requested size as base64', async () => {
    const result = await adapter.generateImages!({ prompt: 'sunset', n: 2, size: '32x16', extra: {} }, context('local-image'));
    expect(result.images).toHaveLength(2);
    const [first, second] = result.images.map((image) => Buffer.from(image.b64_json, 'base64'));
    expect(first!.readUInt32BE(16)).toBe(32);
    expect(first!.readUInt32BE(20)).toBe(16);
    expect(first!.equals(second!)).toBe(false);
    expect(inflateSync(first!.subarray(41, 41 + first!.readUInt32BE(33))).length).toBe(16 * (1 + 32 * 3));
  });

  it.each(['1024', '0x10', '10x5000', 'axb', ''])('refuses the image size %j', async (size) => {
    await expect(adapter.generateImages!({ prompt: 'p', n: 1, size, extra: {} }, context('local-image'))).rejects.toMatchObject({ code: 'VALIDATION_4005' });
  });

  it.each([
    { name: 'unknown model for chat', call: () => adapter.chat(chatRequest, context('gpt-4o')) },
    { name: 'embedding model for chat', call: () => adapter.chat(chatRequest, context('local-embed')) },
    { name: 'unknown model for embeddings', call: () => adapter.embed!({ input: ['x'] }, context('local-echo')) },
    { name: 'unknown model for rerank', call: () => adapter.rerank!({ query: 'q', documents: [] }, context('nope')) },
    { name: 'unknown model for images', call: () => adapter.generateImages!({ prompt: 'p', n: 1, size: '8x8', extra: {} }, context('dall-e-3')) },
    {
      name: 'unknown model for streaming',
      call: async () => {
        for await (const _chunk of adapter.chatStream(chatRequest, context('other'))) void _chunk;
      },
    },
  ])('rejects an $name with INFERENCE_3105', async ({ call }) => {
    await expect(call()).rejects.toMatchObject({ code: 'INFERENCE_3105', status: 502 });
  });
});
