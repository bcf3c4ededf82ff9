import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeHandler, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';
import { readRecordedJson } from '../helpers/recorded.js';

/** Embeddings with a provider batch cap, rerank and image generation through a real loopback upstream. */

function embeddingsAnswer(input: string[]) {
  // Answered in reverse order with explicit indexes, like servers that do not keep order.
  return {
    object: 'list',
    data: input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length, index, 0.5] })).reverse(),
    model: 'real-embed-1',
    usage: { prompt_tokens: input.length * 3, total_tokens: input.length * 3 },
  };
}

const defaultHandler: FakeHandler = (request) => {
  if (request.path.endsWith('/embeddings')) return { json: embeddingsAnswer(request.body.input) };
  if (request.path.endsWith('/rerank')) {
    const documents = request.body.documents as string[];
    // Cohere-like: scores by shared letters with the query, answered unsorted.
    return {
      json: {
        id: 'rr-1',
        results: documents.map((document, index) => ({ index, relevance_score: document.includes(request.body.query) ? 0.9 - index / 100 : 0.1 })),
        meta: { billed_units: { search_units: 1 } },
      },
    };
  }
  if (request.path.endsWith('/images/generations')) {
    return { json: { created: 1, data: Array.from({ length: request.body.n }, (_, index) => ({ b64_json: Buffer.from(`image-${index}`).toString('base64'), revised_prompt: `revised ${index}` })) } };
  }
  return { status: 404, json: { error: { message: 'no such route' } } };
};

describe('embeddings, rerank and images through an OpenAI-compatible provider', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  let handler: FakeHandler = defaultHandler;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => handler(request));
    const config = upstreamConfig(upstream.url);
    const providers = config['providers'] as Record<string, Record<string, unknown>>;
    providers['capped'] = { kind: 'openai', base_url: `${upstream.url}/capped`, timeout_ms: 2000, max_embedding_batch: 2 };
    providers['voyage'] = { kind: 'openai', base_url: `${upstream.url}/voyage`, timeout_ms: 2000, rerank_top_field: 'top_k' };
    const models = config['models'] as Record<string, any>;
    models['capped-embed'] = { type: 'embeddings', context_length: 8000, routes: [{ provider: 'capped', upstream_model: 'capped-embed-1', pricing: { input_cost_per_million_eur: 0.02 } }] };
    models['up-rerank'] = { type: 'reranker', routes: [{ provider: 'up', upstream_model: 'real-rerank-1', pricing: { input_cost_per_million_eur: 0.05 } }] };
    models['voyage-rerank'] = { type: 'reranker', routes: [{ provider: 'voyage', upstream_model: 'rerank-2.5' }] };
    models['up-image'] = {
      type: 'image',
      image_sizes: ['1024x1024', '512x512'],
      routes: [{ provider: 'up', upstream_model: 'flux-dev', pricing: { image_cost_per_image_eur: 0.04 }, energy: { wh_per_image: 2 } }],
    };
    igw = await startTestGateway(config);
  });
  afterAll(async () => {
    await igw.close();
    await upstream.close();
  });
  afterEach(() => {
    handler = defaultHandler;
  });

  it('embeddings: an array goes upstream in one call when the provider has no small cap', async () => {
    const before = upstream.requests.length;
    const response = await postJson(`${igw.url}/v1/embeddings`, igw.key, { model: 'up-embed', input: ['a', 'bb', 'ccc'] });
    expect(response.status).toBe(200);
    const sent = upstream.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.path).toBe('/v1/embeddings');
    expect(sent[0]!.body).toEqual({ model: 'real-embed-1', input: ['a', 'bb', 'ccc'], encoding_format: 'float' });
    expect(response.json.data.map((item: any) => item.embedding[0])).toEqual([1, 2, 3]);
    expect(response.json.usage).toEqual({ prompt_tokens: 9, total_tokens: 9 });
  });

  it('embeddings: a cap of 2 splits five inputs into 2+2+1 calls, order kept, usage summed', async () => {
    const before = upstream.requests.length;
    const input = ['one', 'two!', 'three', 'four!!', 'five!!!'];
    const response = await postJson(`${igw.url}/v1/embeddings`, igw.key, { model: 'capped-embed', input, encoding_format: 'base64' });
    expect(response.status).toBe(200);
    const sent = upstream.requests.slice(before);
    expect(sent.map((request) => request.path)).toEqual(['/v1/capped/embeddings', '/v1/capped/embeddings', '/v1/capped/embeddings']);
    expect(sent.map((request) => request.body.input)).toEqual([['one', 'two!'], ['three', 'four!!'], ['five!!!']]);
    const lengths = response.json.data.map((item: any) => Buffer.from(item.embedding, 'base64').readFloatLE(0));
    expect(lengths).toEqual(input.map((text) => text.length));
    expect(response.json.data.map((item: any) => item.index)).toEqual([0, 1, 2, 3, 4]);
    expect(response.json.usage).toEqual({ prompt_tokens: 15, total_tokens: 15 });
  });

  it('embeddings: dimensions is forwarded where the model truncates, refused (400) where it does not', async () => {
    const before = upstream.requests.length;
    const ok = await postJson(`${igw.url}/v1/embeddings`, igw.key, { model: 'up-embed', input: 'hi', dimensions: 2 });
    expect(ok.status).toBe(200);
    expect(upstream.requests[before]!.body.dimensions).toBe(2);
    const refused = await postJson(`${igw.url}/v1/embeddings`, igw.key, { model: 'capped-embed', input: 'hi', dimensions: 2 });
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe('VALIDATION_4005');
    expect(upstream.requests).toHaveLength(before + 1);
  });

  it('embeddings: a wrong number of vectors from upstream is INFERENCE_3105', async () => {
    handler = () => ({ json: { data: [{ index: 0, embedding: [1] }] } });
    const response = await postJson(`${igw.url}/v1/embeddings`, igw.key, { model: 'up-embed', input: ['a', 'b'] });
    expect(response.json.error.code).toBe('INFERENCE_3105');
  });

  it('embeddings: the recorded OpenAI base64 batch replayed through igw decodes to the same floats', async () => {
    const raw = readRecordedJson('embeddings/openai-base64-batch.json');
    const input = readRecordedJson('embeddings/openai-base64-batch.request.json').input as string[];
    handler = () => ({ json: raw });
    const response = await postJson(`${igw.url}/v1/embeddings`, igw.key, { model: 'up-embed', input });
    expect(response.status).toBe(200);
    const expected = Buffer.from(raw.data[1].embedding, 'base64');
    expect(response.json.data[1].embedding).toHaveLength(expected.length / 4);
    expect(response.json.data[1].embedding[0]).toBe(expected.readFloatLE(0));
    expect(response.json.usage.prompt_tokens).toBe(raw.usage.prompt_tokens);
  });

  it('rerank: common body upstream, results sorted with original index, documents added by igw, top_n applied', async () => {
    const before = upstream.requests.length;
    const documents = ['a cat sat', { text: 'dogs bark' }, 'the cat again', 'birds'];
    const response = await postJson(`${igw.url}/v1/rerank`, igw.key, { model: 'up-rerank', query: 'cat', documents, top_n: 2, max_chunks_per_doc: 4 });
    expect(response.status).toBe(200);
    const sent = upstream.requests[before]!;
    expect(sent.path).toBe('/v1/rerank');
    expect(sent.body).toEqual({ model: 'real-rerank-1', query: 'cat', documents: ['a cat sat', 'dogs bark', 'the cat again', 'birds'], top_n: 2, return_documents: false, max_chunks_per_doc: 4 });
    expect(response.json.results).toEqual([
      { index: 0, relevance_score: 0.9, document: { text: 'a cat sat' } },
      { index: 2, relevance_score: 0.88, document: { text: 'the cat again' } },
    ]);
    expect(response.json.meta).toEqual({ billed_units: { search_units: 1 } });
    expect(response.json.usage.prompt_tokens).toBeGreaterThan(0);
    expect(response.json.billing_cost.credits).not.toBe('0');
    expect(response.json.model).toBe('up-rerank');
  });

  it('rerank: a provider configured with rerank_top_field top_k (Voyage) gets top_k', async () => {
    const before = upstream.requests.length;
    const response = await postJson(`${igw.url}/v1/rerank`, igw.key, { model: 'voyage-rerank', query: 'cat', documents: ['cat', 'dog', 'cat food'], top_n: 1 });
    expect(response.status).toBe(200);
    const sent = upstream.requests[before]!;
    expect(sent.path).toBe('/v1/voyage/rerank');
    expect(sent.body).toEqual({ model: 'rerank-2.5', query: 'cat', documents: ['cat', 'dog', 'cat food'], top_k: 1, return_documents: false });
    expect(response.json.results).toEqual([{ index: 0, relevance_score: 0.9, document: { text: 'cat' } }]);
  });

  it('rerank: return_documents false leaves document out', async () => {
    const response = await postJson(`${igw.url}/v1/rerank`, igw.key, { model: 'up-rerank', query: 'cat', documents: ['x', 'cat'], return_documents: false });
    expect(response.status).toBe(200);
    expect(response.json.results).toEqual([
      { index: 1, relevance_score: 0.89 },
      { index: 0, relevance_score: 0.1 },
    ]);
  });

  it('rerank: recorded Voyage (`data`) and Together captures through igw', async () => {
    handler = () => ({ json: readRecordedJson('rerank/voyage-rerank.json') });
    const voyage = await postJson(`${igw.url}/v1/rerank`, igw.key, { model: 'up-rerank', query: 'q', documents: ['d0', 'd1'] });
    expect(voyage.json.results.map((entry: any) => entry.index)).toEqual([1, 0]);
    expect(voyage.json.usage).toEqual({ prompt_tokens: 12, total_tokens: 12 });
    handler = () => ({ json: readRecordedJson('rerank/togetherai-rerank.json') });
    const together = await postJson(`${igw.url}/v1/rerank`, igw.key, { model: 'up-rerank', query: 'q', documents: ['d0', 'd1', 'd2', 'd3', 'd4', 'd5'] });
    expect(together.json.results).toEqual([
      { index: 0, relevance_score: 0.6475887154399037, document: { text: 'd0' } },
      { index: 5, relevance_score: 0.6323295373206566, document: { text: 'd5' } },
    ]);
    expect(together.json.usage.prompt_tokens).toBe(2966);
  });

  it('images: n, size, quality, style, seed, user and model-specific fields reach the upstream; b64 images back, billed per image', async () => {
    const before = upstream.requests.length;
    const response = await postJson(`${igw.url}/v1/images/generations`, igw.key, {
      model: 'up-image',
      prompt: 'a fox',
      n: 3,
      size: '512x512',
      quality: 'hd',
      style: 'natural',
      seed: 42,
      user: 'u-1',
      steps: 28,
      guidance: 3.5,
      negative_prompt: 'blurry',
      output_format: 'webp',
    });
    expect(response.status).toBe(200);
    const sent = upstream.requests[before]!;
    expect(sent.path).toBe('/v1/images/generations');
    expect(sent.body).toEqual({
      model: 'flux-dev',
      prompt: 'a fox',
      n: 3,
      size: '512x512',
      response_format: 'b64_json',
      quality: 'hd',
      style: 'natural',
      seed: 42,
      user: 'u-1',
      steps: 28,
      guidance: 3.5,
      negative_prompt: 'blurry',
      output_format: 'webp',
    });
    expect(response.json.data).toHaveLength(3);
    expect(Buffer.from(response.json.data[2].b64_json, 'base64').toString()).toBe('image-2');
    expect(response.json.data[0].revised_prompt).toBe('revised 0');
    // 3 images × 0.04 EUR.
    expect(response.json.credits_cost).toBeCloseTo(0.12, 10);
    expect(typeof response.json.energy_cost).toBe('number');
  });

  it('images: spec defaults are sent when the client leaves them out', async () => {
    const before = upstream.requests.length;
    const response = await postJson(`${igw.url}/v1/images/generations`, igw.key, { model: 'up-image', prompt: 'a fox' });
    expect(response.status).toBe(200);
    expect(upstream.requests[before]!.body).toEqual({ model: 'flux-dev', prompt: 'a fox', n: 1, size: '1024x1024', response_format: 'b64_json', quality: 'standard', style: 'vivid' });
  });

  it('images: a url-only upstream answer is INFERENCE_3105', async () => {
    handler = () => ({ json: { created: 1, data: [{ url: 'https://example.invalid/x.png' }] } });
    const response = await postJson(`${igw.url}/v1/images/generations`, igw.key, { model: 'up-image', prompt: 'a fox' });
    expect(response.json.error.code).toBe('INFERENCE_3105');
  });

  describe('upstream errors are classified', () => {
    const cases: Array<{ endpoint: string; body: Record<string, unknown> }> = [
      { endpoint: '/v1/embeddings', body: { model: 'up-embed', input: 'x' } },
      { endpoint: '/v1/rerank', body: { model: 'up-rerank', query: 'q', documents: ['a'] } },
      { endpoint: '/v1/images/generations', body: { model: 'up-image', prompt: 'p' } },
    ];
    for (const { endpoint, body } of cases) {
      it(`${endpoint}: 400 → VALIDATION_4005 with the upstream message, 429 → INFERENCE_3108, 500 → INFERENCE_3105`, async () => {
        handler = () => ({ status: 400, json: { error: { message: "Unknown parameter: 'steps'.", type: 'invalid_request_error', param: 'steps', code: 'unknown_parameter' } } });
        const invalid = await postJson(`${igw.url}${endpoint}`, igw.key, body);
        expect(invalid.status).toBe(400);
        expect(invalid.json.error.code).toBe('VALIDATION_4005');
        expect(JSON.stringify(invalid.json)).toContain("Unknown parameter: 'steps'.");
        handler = () => ({ status: 429, json: { error: { message: 'slow down', type: 'rate_limit_exceeded' } } });
        const limited = await postJson(`${igw.url}${endpoint}`, igw.key, body);
        expect(limited.json.error.code).toBe('INFERENCE_3108');
        handler = () => ({ status: 500, text: 'internal error' });
        const failed = await postJson(`${igw.url}${endpoint}`, igw.key, body);
        expect(failed.json.error.code).toBe('INFERENCE_3105');
        expect(failed.status).toBeGreaterThanOrEqual(500);
      });
    }
  });
});
