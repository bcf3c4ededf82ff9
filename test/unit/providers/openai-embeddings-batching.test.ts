import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { createOpenAiCompatibleAdapter } from '../../../src/providers/openai-compatible/adapter.js';
import { defaultEmbeddingBatch, mergeEmbeddingResults, splitBatches } from '../../../src/providers/openai-compatible/embeddings-batching.js';
import { normalizeEmbeddings } from '../../../src/providers/openai-compatible/normalize.js';
import type { UpstreamHttpClient } from '../../../src/providers/http-client.js';
import { readRecordedJson } from '../../helpers/recorded.js';

describe('embedding batches', () => {
  it('splits in order, keeps the tail, never empty batches', () => {
    expect(splitBatches(['a', 'b', 'c', 'd', 'e'], 2)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(splitBatches(['a'], 512)).toEqual([['a']]);
    expect(splitBatches([], 2)).toEqual([]);
  });

  it('defaults: 2048 for vendor openai, else 512', () => {
    expect(defaultEmbeddingBatch('openai')).toBe(2048);
    expect(defaultEmbeddingBatch('generic')).toBe(512);
    expect(defaultEmbeddingBatch('vllm')).toBe(512);
  });

  it('merges vectors in order and sums usage', () => {
    expect(mergeEmbeddingResults([{ vectors: [[1], [2]], promptTokens: 3 }, { vectors: [[3]], promptTokens: 4 }])).toEqual({ vectors: [[1], [2], [3]], promptTokens: 7 });
  });
});

/** An http client stub answering each call from `answer` and recording what was sent. */
function stubClient(answer: (body: any) => unknown) {
  const calls: Array<{ url: string; body: any }> = [];
  const httpClient = {
    async postJson(url: string, body: any) {
      calls.push({ url, body });
      // Like the real client: the body text, parsed unless the caller reads the text itself.
      const json = answer(body);
      return { status: 200, headers: {}, json, text: JSON.stringify(json) };
    },
  } as unknown as UpstreamHttpClient;
  return { calls, httpClient };
}

const context = { signal: new AbortController().signal, upstreamModel: 'emb-1', requestId: 'x' };

describe('adapter.embed', () => {
  it('one upstream call when under the cap; several when over it, order kept and usage summed', async () => {
    const { calls, httpClient } = stubClient((body) => ({
      data: (body.input as string[]).map((text, index) => ({ index, embedding: [Number(text)] })).reverse(),
      usage: { prompt_tokens: body.input.length * 10, total_tokens: body.input.length * 10 },
    }));
    const capped = createOpenAiCompatibleAdapter({ id: 'e', baseUrl: 'http://127.0.0.1:1/v1', headers: {}, timeoutMs: 1000, maxEmbeddingBatch: 2 }, httpClient);
    const result = await capped.embed!({ input: ['1', '2', '3', '4', '5'], dimensions: 1 }, context);
    expect(calls.map((call) => call.body.input)).toEqual([['1', '2'], ['3', '4'], ['5']]);
    expect(calls.every((call) => call.body.dimensions === 1 && call.body.model === 'emb-1')).toBe(true);
    expect(result.vectors).toEqual([[1], [2], [3], [4], [5]]);
    expect(result.promptTokens).toBe(50);

    calls.length = 0;
    const uncapped = createOpenAiCompatibleAdapter({ id: 'e', baseUrl: 'http://127.0.0.1:1/v1', headers: {}, timeoutMs: 1000 }, httpClient);
    await uncapped.embed!({ input: ['1', '2', '3', '4', '5'] }, context);
    expect(calls).toHaveLength(1);
  });
});

describe('recorded embeddings replayed through the adapter', () => {

  // OpenAI-compatible answers only. Cohere's native /v2/embed answer (embeddings.float,
  // meta.billed_units) is not the OpenAI shape: igw reaches Cohere through its OpenAI
  // compatibility endpoint instead, so that capture must be refused, not misread.
  for (const [file, requestFile] of [
    ['embeddings/openai-base64.json', 'embeddings/openai-base64.request.json'],
    ['embeddings/openai-base64-batch.json', 'embeddings/openai-base64-batch.request.json'],
    ['embeddings/voyage-base64.json', 'embeddings/voyage-base64.request.json'],
  ] as const) {
    it(`${file}: base64 decoded into float vectors, split per input with a cap of 1`, async () => {
      const raw = readRecordedJson(file);
      const input = readRecordedJson(requestFile).input as string[];
      let call = 0;
      // With a cap of 1 each upstream call gets back its own recorded item.
      const { calls, httpClient } = stubClient(() => ({ ...raw, data: [{ ...raw.data[call++], index: 0 }] }));
      const adapter = createOpenAiCompatibleAdapter({ id: 'e', baseUrl: 'http://127.0.0.1:1/v1', headers: {}, timeoutMs: 1000, maxEmbeddingBatch: 1 }, httpClient);
      const result = await adapter.embed!({ input }, context);
      expect(calls).toHaveLength(input.length);
      expect(result.vectors).toHaveLength(input.length);
      const whole = normalizeEmbeddings(raw, input.length, 'e');
      expect(result.vectors).toEqual(whole.vectors);
      for (const vector of result.vectors) {
        expect(vector.length).toBeGreaterThan(100);
        expect(Math.hypot(...vector)).toBeCloseTo(1, 2);
      }
      expect(result.promptTokens).toBe((raw.usage?.prompt_tokens ?? raw.usage?.total_tokens ?? 0) * input.length);
    });
  }

  it('Cohere native embed answer is refused (INFERENCE_3105), not misread', () => {
    expect(() => normalizeEmbeddings(readRecordedJson('embeddings/cohere-v2-embed-float.json'), 1, 'cohere')).toThrow(GatewayError);
  });
});
