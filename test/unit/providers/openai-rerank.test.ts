import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { createOpenAiCompatibleAdapter } from '../../../src/providers/openai-compatible/adapter.js';
import { normalizeRerank, upstreamRerankBody } from '../../../src/providers/openai-compatible/rerank.js';
import type { UpstreamHttpClient } from '../../../src/providers/http-client.js';
import { countTokens } from '../../../src/tokens/tokenizer.js';
import { readRecordedJson } from '../../helpers/recorded.js';

const documents = (count: number) => Array.from({ length: count }, (_, index) => `document number ${index}`);

describe('upstreamRerankBody', () => {
  it('sends the common rerank shape with return_documents false', () => {
    expect(upstreamRerankBody({ query: 'q', documents: ['a', 'b'], top_n: 1, max_chunks_per_doc: 3 }, 'rerank-x')).toEqual({
      model: 'rerank-x',
      query: 'q',
      documents: ['a', 'b'],
      top_n: 1,
      return_documents: false,
      max_chunks_per_doc: 3,
    });
    expect(upstreamRerankBody({ query: 'q', documents: ['a'] }, 'm')).toEqual({ model: 'm', query: 'q', documents: ['a'], return_documents: false });
    expect(upstreamRerankBody({ query: 'q', documents: ['a', 'b'], top_n: 10 }, 'm')['top_n']).toBe(2);
    // Voyage names the field top_k.
    expect(upstreamRerankBody({ query: 'q', documents: ['a', 'b'], top_n: 1 }, 'm', 'top_k')).toEqual({ model: 'm', query: 'q', documents: ['a', 'b'], top_k: 1, return_documents: false });
  });
});

describe('normalizeRerank over recorded captures', () => {

  it('Cohere v2: results, search units from meta.billed_units, tokens counted', () => {
    const request = { query: 'cat', documents: ['a dog', 'a cat'] };
    const result = normalizeRerank(readRecordedJson('rerank/cohere-v2-rerank.json'), request, 'cohere');
    expect(result.results).toEqual([
      { index: 1, relevance_score: 0.10183054 },
      { index: 0, relevance_score: 0.03762639 },
    ]);
    expect(result.searchUnits).toBe(1);
    // No token usage in Cohere's answer: query + document per document with the gateway tokenizer.
    expect(result.promptTokens).toBe(2 * countTokens('cat') + countTokens('a dog') + countTokens('a cat'));
  });

  it('Together: results with empty document echoes, usage.total_tokens', () => {
    const result = normalizeRerank(readRecordedJson('rerank/togetherai-rerank.json'), { query: 'q', documents: documents(6) }, 'together');
    expect(result.results).toEqual([
      { index: 0, relevance_score: 0.6475887154399037 },
      { index: 5, relevance_score: 0.6323295373206566 },
    ]);
    expect(result.promptTokens).toBe(2966);
    expect(result.searchUnits).toBe(1);
  });

  it('Voyage: `data` instead of `results`, usage.total_tokens', () => {
    const result = normalizeRerank(readRecordedJson('rerank/voyage-rerank.json'), { query: 'q', documents: documents(2) }, 'voyage');
    expect(result.results).toEqual([
      { index: 1, relevance_score: 0.5703125 },
      { index: 0, relevance_score: 0.255859375 },
    ]);
    expect(result.promptTokens).toBe(12);
  });
});

describe('normalizeRerank', () => {
  it('sorts by score (ties by index) whatever order the provider used', () => {
    const body = { results: [{ index: 2, relevance_score: 0.1 }, { index: 1, relevance_score: 0.9 }, { index: 0, relevance_score: 0.1 }] };
    expect(normalizeRerank(body, { query: 'q', documents: documents(3) }, 'p').results.map((entry) => entry.index)).toEqual([1, 0, 2]);
  });

  it('passes scores outside [0,1] through unchanged (no silent clamping)', () => {
    const body = { results: [{ index: 0, relevance_score: -3.5 }, { index: 1, relevance_score: 7.25 }] };
    expect(normalizeRerank(body, { query: 'q', documents: documents(2) }, 'p').results).toEqual([
      { index: 1, relevance_score: 7.25 },
      { index: 0, relevance_score: -3.5 },
    ]);
  });

  it('search units: 1 per started 100 documents when the provider does not say', () => {
    const body = { results: [{ index: 0, relevance_score: 0.5 }], usage: { total_tokens: 40 } };
    expect(normalizeRerank(body, { query: 'q', documents: documents(250) }, 'p').searchUnits).toBe(3);
    expect(normalizeRerank({ ...body, meta: { billed_units: { search_units: 7 } } }, { query: 'q', documents: documents(250) }, 'p').searchUnits).toBe(7);
  });

  it('an index outside the documents list, a missing list or a non-JSON-number score is INFERENCE_3105', () => {
    const request = { query: 'q', documents: documents(2) };
    for (const body of [{ results: [{ index: 2, relevance_score: 0.5 }] }, { object: 'list' }, { results: [{ index: 0, relevance_score: '0.5' }] }, 'nope']) {
      try {
        normalizeRerank(body, request, 'p');
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(GatewayError);
        expect((error as GatewayError).code).toBe('INFERENCE_3105');
      }
    }
  });
});

describe('adapter.rerank', () => {
  it('posts to {base_url}/rerank and normalizes', async () => {
    const calls: Array<{ url: string; body: any }> = [];
    const httpClient = {
      async postJson(url: string, body: unknown) {
        calls.push({ url, body });
        return { status: 200, headers: {}, json: { results: [{ index: 0, relevance_score: 0.3 }] }, text: '' };
      },
    } as unknown as UpstreamHttpClient;
    const adapter = createOpenAiCompatibleAdapter({ id: 'r', baseUrl: 'http://127.0.0.1:1/v1/', headers: {}, timeoutMs: 1000 }, httpClient);
    const result = await adapter.rerank!({ query: 'q', documents: ['a'] }, { signal: new AbortController().signal, upstreamModel: 'rr', requestId: 'x' });
    expect(calls[0]!.url).toBe('http://127.0.0.1:1/v1/rerank');
    expect(calls[0]!.body).toMatchObject({ model: 'rr', query: 'q', documents: ['a'], return_documents: false });
    expect(result.results).toEqual([{ index: 0, relevance_score: 0.3 }]);
  });
});

