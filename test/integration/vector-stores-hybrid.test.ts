import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as kit from '../../bench/retrieval-kit.mjs';
import type { LabelledQuery, Summary } from '../../bench/retrieval-kit.mjs';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * The retrieval quality bar (issue 16, bench/retrieval.mjs): the labelled queries over the sample
 * documents, searched vector-only, BM25-only and hybrid through the gateway, scored by nDCG@10.
 */
describe('hybrid retrieval quality over the sample documents', () => {
  let queries: LabelledQuery[];
  beforeAll(async () => {
    queries = await kit.loadQueries();
  });

  describe('on the built-in models (local-embed)', () => {
    let igw: TestGateway;
    let key: string;
    let storeId: string;
    let summaries: Record<'vector' | 'bm25' | 'hybrid', Summary>;

    beforeAll(async () => {
      igw = await startTestGateway();
      key = await igw.newKey({ name: 'kb', vault: true });
      const built = await kit.buildStore(igw.url, key, 'local-embed', () => igw.gateway.app.vectorStores.idle());
      storeId = built.storeId;
      ({ summaries } = await kit.evaluateStore(igw.url, key, storeId, built.chunks, queries));
    }, 120_000);
    afterAll(async () => {
      await igw?.close();
    });

    it('hybrid is at least as good as BM25 alone, overall and on the keyword queries, and better than vector search alone', () => {
      expect(summaries.hybrid.all.ndcg).toBeGreaterThanOrEqual(summaries.bm25.all.ndcg);
      expect(summaries.hybrid.keyword.ndcg).toBeGreaterThanOrEqual(summaries.bm25.keyword.ndcg);
      expect(summaries.hybrid.all.ndcg).toBeGreaterThan(summaries.vector.all.ndcg);
    });

    it('a threshold separates hits from noise: queries about nothing in the store return nothing, keyword queries keep their answer', async () => {
      const search = (query: string) => postJson(`${igw.url}/v1/vector_stores/${storeId}/search`, key, { query, ranking_options: { score_threshold: 0.15 } });
      for (const unrelated of ['quantum chromodynamics on a lattice', 'medieval tapestry weaving techniques', 'sourdough starter hydration']) {
        expect((await search(unrelated)).json.data, unrelated).toEqual([]);
      }
      let answered = 0;
      const keyword = queries.filter((query) => query.class === 'keyword');
      for (const query of keyword) {
        const hits = (await search(query.query)).json.data as Array<{ filename: string }>;
        if (hits.some((hit) => query.relevant.some((relevant) => relevant.file === hit.filename))) answered += 1;
      }
      expect(answered / keyword.length).toBeGreaterThanOrEqual(0.8);
    });
  });

  describe('with an embedding model that knows the paraphrases (a fake upstream serving concept vectors)', () => {
    let upstream: FakeUpstream;
    let igw: TestGateway;
    let summaries: Record<'vector' | 'bm25' | 'hybrid', Summary>;

    beforeAll(async () => {
      const concepts = await kit.loadConcepts();
      upstream = await startFakeUpstream((request) => ({ json: kit.conceptEmbeddingsAnswer(concepts, request.body.input) }));
      igw = await startTestGateway({ providers: { concept: { kind: 'openai', base_url: upstream.url, timeout_ms: 5000 } }, models: { 'concept-embed': kit.conceptModel('concept') } });
      const key = await igw.newKey({ name: 'kb', vault: true });
      const built = await kit.buildStore(igw.url, key, 'concept-embed', () => igw.gateway.app.vectorStores.idle());
      ({ summaries } = await kit.evaluateStore(igw.url, key, built.storeId, built.chunks, queries));
    }, 120_000);
    afterAll(async () => {
      await igw?.close();
      await upstream?.close();
    });

    it('hybrid beats BM25 on the paraphrases and is not below the better of its two parts overall', () => {
      expect(summaries.hybrid.paraphrase.ndcg).toBeGreaterThan(summaries.bm25.paraphrase.ndcg + 0.5);
      expect(summaries.hybrid.all.ndcg).toBeGreaterThanOrEqual(Math.max(summaries.vector.all.ndcg, summaries.bm25.all.ndcg));
      expect(summaries.hybrid.keyword.ndcg).toBeGreaterThanOrEqual(summaries.bm25.keyword.ndcg);
    });
  });
});
