import { describe, expect, it } from 'vitest';
import { Ledger } from '../../../src/billing/ledger.js';
import { Catalog } from '../../../src/catalog/catalog.js';
import { buildConfig } from '../../../src/config/load.js';
import type { InferenceLog } from '../../../src/inference/index.js';
import type { ProviderAdapter } from '../../../src/providers/types.js';
import { RouteHealth } from '../../../src/routing/health.js';
import type { AccountRecord, AccountRepository } from '../../../src/store/accounts.js';
import type { RequestLogEntry } from '../../../src/store/request-log.js';
import { CallerAbort } from '../../../src/util/caller-abort.js';
import { silentLogger } from '../../../src/util/logger.js';
import { EMBED_BATCH_SIZE, embedTexts } from '../../../src/vector-stores/embedder.js';
import type { InternalCallDeps } from '../../../src/vector-stores/internal-call.js';
import { rerankTexts } from '../../../src/vector-stores/rerank-stage.js';
import { fakeProviders } from '../inference/scope-fixture.js';

/** Two providers: "chat-only" cannot embed (skipped, not a failure), "emb" embeds and reranks at a price. */
const CONFIG = {
  providers: { 'chat-only': { kind: 'openai', base_url: 'https://c.test/v1' }, emb: { kind: 'openai', base_url: 'https://e.test/v1' } },
  models: {
    vec: {
      type: 'embeddings',
      routes: [
        { provider: 'chat-only', upstream_model: 'c-embed', pricing: { input_cost_per_million_eur: 1 } },
        { provider: 'emb', upstream_model: 'e-embed', pricing: { input_cost_per_million_eur: 1_000_000 }, energy: { wh_per_1k_input_tokens: 1 } },
      ],
    },
    rr: { type: 'reranker', routes: [{ provider: 'emb', upstream_model: 'e-rerank', pricing: { input_cost_per_million_eur: 1_000_000 } }] },
  },
};

function fixture(account: Partial<AccountRecord> = {}) {
  const config = buildConfig(CONFIG, null, {});
  const debits: string[] = [];
  const lines: RequestLogEntry[] = [];
  const reported: RequestLogEntry[] = [];
  const embedCalls: string[][] = [];
  const record: AccountRecord = { id: 'acct', plan: 'developer', energy: '0', credits: '100', created_at: 0, ...account };
  const accounts = { get: (id: string) => (id === record.id ? record : undefined), debit: async (_account: string, _balance: string, amount: string) => void debits.push(amount) } as unknown as AccountRepository;
  const adapters: Record<string, Partial<ProviderAdapter>> = {
    'chat-only': {},
    emb: {
      embed: async (request) => {
        embedCalls.push(request.input);
        return { vectors: request.input.map((text) => [text.length]), promptTokens: request.input.length };
      },
      rerank: async (request) => ({ results: request.documents.map((document, index) => ({ index, relevance_score: document === request.query ? 2 : 0.5 })), promptTokens: 3, searchUnits: 1 }),
    },
  };
  let next = 0;
  const deps: InternalCallDeps = {
    config,
    catalog: new Catalog(config),
    providers: fakeProviders(adapters),
    routeHealth: new RouteHealth({ now: () => Date.now() }),
    ledger: new Ledger(config, accounts),
    clock: { now: () => 1_700_000_000_000 },
    logger: silentLogger,
    store: { accounts, requestLog: { append: (entry) => void lines.push(entry) } },
    activity: { recordRequest: (entry) => void reported.push(entry) },
    ids: { next: (prefix) => `${prefix}${(next += 1)}` },
  };
  return { deps, debits, lines, reported, embedCalls };
}

describe('the vector stores\' internal model calls run the pipeline', () => {
  it('ingestion (no calling request): routes that embed, billed, one request-log line of its own per call, reported to the activity feed', async () => {
    const { deps, debits, lines, reported, embedCalls } = fixture();
    const vectors = await embedTexts(deps, 'acct', 'vec', ['a', 'bb'], { endpoint: '/v1/vector_stores/{vector_store_id}/files (ingest)', keyId: 'key_upload' });
    expect(vectors).toEqual([[1], [2]]);
    expect(embedCalls).toEqual([['a', 'bb']]);
    // 2 tokens × 1 EUR per token.
    await Promise.resolve();
    expect(debits).toEqual(['2']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      request_id: 'req_1',
      key_id: 'key_upload',
      account: 'acct',
      endpoint: '/v1/vector_stores/{vector_store_id}/files (ingest)',
      model: 'vec',
      provider: 'emb',
      route: 'emb/e-embed',
      status: 200,
      error_code: null,
      input_tokens: 2,
      output_tokens: 0,
      eur: '2',
      paid_with: 'credits',
      stream: false,
    });
    expect(lines[0]!.energy_kwh).toBeGreaterThan(0);
    expect(reported).toEqual(lines);
  });

  it('on behalf of a request (search): the calling line carries the sum of every call, no line of its own', async () => {
    const { deps, lines, embedCalls } = fixture();
    const log: InferenceLog = { model: 'caller', input_tokens: 1, eur: '0.5' };
    const texts = Array.from({ length: EMBED_BATCH_SIZE + 1 }, (_, index) => `t${index}`);
    await embedTexts(deps, 'acct', 'vec', texts, { endpoint: '/v1/vector_stores/{vector_store_id}/search', log });
    const scores = await rerankTexts(deps, 'acct', 'rr', 'q', ['q', 'x'], { endpoint: '/v1/vector_stores/{vector_store_id}/search', log });
    expect(embedCalls.map((batch) => batch.length)).toEqual([EMBED_BATCH_SIZE, 1]);
    expect(scores).toEqual([1, 0.5]);
    expect(lines).toHaveLength(0);
    // 1 (caller) + 65 embedded + 3 reranked tokens; money summed exactly as decimals.
    expect(log).toMatchObject({ model: 'rr', provider: 'emb', route: 'emb/e-rerank', input_tokens: 69, eur: '68.5', paid_with: 'credits' });
  });

  it('an id is drawn only when read: none for a search\'s query embedding, the same one for the adapter and a line of its own', async () => {
    const { deps, lines } = fixture();
    const drawn: string[] = [];
    const next = deps.ids.next;
    deps.ids = { next: (prefix) => (drawn.push(prefix), next(prefix)) };
    const log: InferenceLog = {};
    const inputs = ['query'];
    const vectors = await embedTexts(deps, 'acct', 'vec', inputs, { endpoint: '/v1/vector_stores/{vector_store_id}/search', log });
    expect(vectors).toEqual([[5]]);
    expect(drawn).toEqual([]);
    expect(log).toEqual({ model: 'vec', provider: 'emb', route: 'emb/e-embed', paid_with: 'credits', input_tokens: 1, eur: '1', energy: expect.any(String), energy_kwh: expect.any(Number), carbon_g_co2: expect.any(Number) });
    const named: string[] = [];
    deps.providers = fakeProviders({ emb: { embed: async (request, context) => (named.push(context.requestId, context.requestId), { vectors: request.input.map(() => [1]), promptTokens: 1 }) } });
    await embedTexts(deps, 'acct', 'vec', ['a'], { endpoint: 'x' });
    expect(drawn).toEqual(['req_']);
    expect(named).toEqual([lines[0]!.request_id, lines[0]!.request_id]);
    expect(lines[0]!.request_id).toMatch(/^req_\d+$/);
  });

  it('hands the calling request\'s abort down to the provider: its signal (made when read) aborts with it', async () => {
    const { deps } = fixture();
    const seen: Array<{ abort: unknown; aborted: boolean }> = [];
    const abort = new CallerAbort();
    deps.providers = fakeProviders({
      emb: {
        embed: async (request, context) => {
          seen.push({ abort: context.abort, aborted: context.signal.aborted });
          abort.abort(new Error('client gone'));
          seen.push({ abort: context.abort, aborted: context.signal.aborted });
          return { vectors: request.input.map(() => [1]), promptTokens: 1 };
        },
      },
    });
    await embedTexts(deps, 'acct', 'vec', ['a'], { endpoint: '/v1/vector_stores/{vector_store_id}/search', abort, log: {} });
    expect(seen).toEqual([
      { abort, aborted: false },
      { abort, aborted: true },
    ]);
    // Without a caller's abort or signal: a signal of its own, never aborted.
    const alone: boolean[] = [];
    deps.providers = fakeProviders({ emb: { embed: async (request, context) => (alone.push(context.signal.aborted), { vectors: request.input.map(() => [1]), promptTokens: 1 }) } });
    await embedTexts(deps, 'acct', 'vec', ['a'], { endpoint: 'x' });
    expect(alone).toEqual([false]);
  });

  it('preflight refuses an account out of energy and credits before any upstream call; a gone account is AUTH_1008', async () => {
    const broke = fixture({ credits: '0' });
    await expect(embedTexts(broke.deps, 'acct', 'vec', ['a'], { endpoint: 'x' })).rejects.toMatchObject({ code: 'BILLING_2001' });
    expect(broke.embedCalls).toHaveLength(0);
    expect(broke.lines).toHaveLength(0);
    await expect(embedTexts(fixture().deps, 'gone', 'vec', ['a'], { endpoint: 'x' })).rejects.toMatchObject({ code: 'AUTH_1008' });
  });
});
