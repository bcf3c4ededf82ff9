import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';

const TEXTS: Record<string, string> = {
  'returns.md': 'Our return policy: items can be returned within 30 days of delivery for a full refund.',
  'shipping.md': 'Shipping takes three to five business days. Express shipping arrives the next day.',
  'warranty.md': 'The warranty covers manufacturing defects for two years from the purchase date.',
  'court.md': 'The justices questioned the warden about the habeas petition during oral argument.',
};

/**
 * ranking_options on POST /v1/vector_stores/{id}/search and the file_search tool: the hybrid
 * weights, the threshold on calibrated scores, and the rerank stage (`vector_stores.reranker`)
 * through a reranker on a loopback upstream, switched off by `ranker: "none"`.
 */
describe('vector store search ranking options', () => {
  let upstream: FakeUpstream;
  let igw: TestGateway;
  let key: string;
  let storeId: string;

  beforeAll(async () => {
    // The fake reranker prefers shipping: a ranking neither BM25 nor the embedding would give.
    upstream = await startFakeUpstream((request) => {
      if (!request.path.endsWith('/rerank')) return { status: 404, json: { error: { message: 'no such route' } } };
      const documents = request.body.documents as string[];
      return { json: { id: 'rr', results: documents.map((document, index) => ({ index, relevance_score: document.includes('Shipping') ? 0.97 : 0.05 })), meta: { billed_units: { search_units: 1 } } } };
    });
    const config = upstreamConfig(upstream.url, { vector_stores: { embedding_model: 'local-embed', reranker: 'up-rerank' } });
    (config['models'] as Record<string, unknown>)['up-rerank'] = { type: 'reranker', routes: [{ provider: 'up', upstream_model: 'rerank-1', pricing: { input_cost_per_million_eur: 0.05 } }] };
    igw = await startTestGateway(config);
    key = await igw.newKey({ name: 'kb', vault: true });
    storeId = (await igw.openai(key).vectorStores.create({ name: 'kb' })).id;
    for (const [name, text] of Object.entries(TEXTS)) expect((await postJson(`${igw.url}/v1/vector_stores/${storeId}/sources/text`, key, { name, text })).status).toBe(200);
    await igw.gateway.app.vectorStores.idle();
  });
  afterAll(async () => {
    await igw?.close();
    await upstream?.close();
  });

  const search = (body: Record<string, unknown>) => postJson(`${igw.url}/v1/vector_stores/${storeId}/search`, key, body);
  const names = (json: any) => (json.data as Array<{ filename: string }>).map((hit) => hit.filename);

  it('without the reranker (ranker none): hybrid scores in [0, 1], the keyword match first, unrelated files far below', async () => {
    const found = await search({ query: 'refund for returned items', ranking_options: { ranker: 'none' } });
    expect(found.status).toBe(200);
    expect(names(found.json)[0]).toBe('returns.md');
    const scores = (found.json.data as Array<{ score: number }>).map((hit) => hit.score);
    for (const score of scores) {
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }
    expect(scores[0]!).toBeGreaterThan(2 * scores[1]!);
    expect(upstream.requests).toHaveLength(0);
  });

  it('a threshold keeps the hits and drops the noise; a query about nothing in the store returns nothing', async () => {
    const found = await search({ query: 'refund for returned items', ranking_options: { ranker: 'none', score_threshold: 0.2 } });
    expect(names(found.json)).toEqual(['returns.md']);
    const nothing = await search({ query: 'quantum chromodynamics lattice', ranking_options: { ranker: 'none', score_threshold: 0.2 } });
    expect(nothing.json.data).toEqual([]);
  });

  it('text-only weights rank by BM25 alone; embedding-only by the cosine', async () => {
    const lexical = await search({ query: 'justices warden', ranking_options: { ranker: 'none', hybrid_search: { embedding_weight: 0, text_weight: 1 } } });
    expect(names(lexical.json)).toEqual(['court.md']);
    const semantic = await search({ query: 'justices warden', ranking_options: { ranker: 'none', hybrid_search: { embedding_weight: 1, text_weight: 0 } } });
    // Every chunk has a cosine: the embedding side lists more than the one file sharing words.
    expect(names(semantic.json)[0]).toBe('court.md');
    expect(names(semantic.json).length).toBeGreaterThan(1);
  });

  it('with the reranker configured, its relevance orders the results and is the score', async () => {
    upstream.requests.length = 0;
    const found = await search({ query: 'refund for returned items' });
    expect(found.status).toBe(200);
    expect(names(found.json)[0]).toBe('shipping.md');
    expect(found.json.data[0].score).toBeCloseTo(0.97);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.body).toMatchObject({ model: 'rerank-1', query: 'refund for returned items' });
    expect(upstream.requests[0]!.body.documents).toHaveLength(4);
  });

  it('refuses invalid ranking options by field, on the endpoint and on the file_search tool', async () => {
    const bad = await search({ query: 'refund', ranking_options: { hybrid_search: { embedding_weight: 0, text_weight: 0 } } });
    expect(bad.status).toBe(400);
    const badRanker = await search({ query: 'refund', ranking_options: { ranker: 'best-ever' } });
    expect(badRanker.status).toBe(400);
    const tool = await postJson(`${igw.url}/v1/responses`, key, {
      model: 'local-echo',
      input: 'refund',
      tools: [{ type: 'file_search', vector_store_ids: [storeId], ranking_options: { hybrid_search: { embedding_weight: -1, text_weight: 1 } } }],
    });
    expect(tool.status).toBe(400);
    expect(JSON.stringify(tool.json)).toContain('tools[0].ranking_options.hybrid_search.embedding_weight');
  });

  it('file_search honours the hybrid weights and the threshold', async () => {
    const response = await igw.openai(key).responses.create({
      model: 'local-echo',
      input: 'justices warden',
      tools: [{ type: 'file_search', vector_store_ids: [storeId], ranking_options: { ranker: 'auto', score_threshold: 0.2, hybrid_search: { embedding_weight: 0, text_weight: 1 } } }],
      tool_choice: { type: 'file_search' },
      include: ['file_search_call.results'],
    });
    const call = response.output[0]!;
    if (call.type !== 'file_search_call') throw new Error('expected a file_search_call');
    // ranker auto: the configured reranker scores court.md 0.05, under the threshold.
    expect(call.results).toEqual([]);
  });
});
