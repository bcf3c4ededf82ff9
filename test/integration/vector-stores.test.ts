import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/admin/accounts-admin.js';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** The vector-store endpoints through the official OpenAI SDK (plus fetch for igw's sources/* endpoints). */
describe('vector stores', () => {
  let gw: TestGateway;
  let vaultKey: string;

  beforeAll(async () => {
    gw = await startTestGateway();
    vaultKey = await gw.newKey({ name: 'vault', vault: true });
  });
  afterAll(async () => {
    await gw.close();
  });

  async function addText(storeId: string, name: string, text: string, attributes?: Record<string, unknown>) {
    const response = await postJson(`${gw.url}/v1/vector_stores/${storeId}/sources/text`, vaultKey, { name, text, ...(attributes === undefined ? {} : { attributes }) });
    expect(response.status).toBe(200);
    return response.json;
  }

  it('creates, retrieves, updates, lists and deletes stores', async () => {
    const client = gw.openai(vaultKey);
    const created = await client.vectorStores.create({ name: 'docs', metadata: { team: 'a' }, expires_after: { anchor: 'last_active_at', days: 7 } });
    expect(created).toMatchObject({
      object: 'vector_store',
      name: 'docs',
      usage_bytes: 0,
      file_counts: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 },
      status: 'completed',
      expires_after: { anchor: 'last_active_at', days: 7 },
      metadata: { team: 'a' },
      embedding_model: 'local-embed',
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.expires_at).toBe(created.last_active_at! + 7 * 86_400);
    const updated = await client.vectorStores.update(created.id, { name: 'renamed', expires_after: null, metadata: { team: 'b' } });
    expect(updated).toMatchObject({ name: 'renamed', expires_after: null, expires_at: null, metadata: { team: 'b' } });
    expect(await client.vectorStores.retrieve(created.id)).toMatchObject({ name: 'renamed' });

    const more = [];
    for (let index = 0; index < 3; index += 1) more.push(await client.vectorStores.create({ name: `s${index}` }));
    const page = await client.vectorStores.list({ limit: 2, order: 'asc', after: created.id });
    expect(page.data.map((store) => store.name)).toEqual(['s0', 's1']);
    expect(page.has_more).toBe(true);
    const all: string[] = [];
    for await (const store of client.vectorStores.list({ limit: 1 })) all.push(store.id);
    expect(all.slice(0, 4)).toEqual([...more].reverse().map((store) => store.id).concat(created.id));

    const deleted = await client.vectorStores.delete(created.id);
    expect(deleted).toEqual({ id: created.id, object: 'vector_store.deleted', deleted: true });
    await expect(client.vectorStores.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('ingests text sources and finds the right document first', async () => {
    const client = gw.openai(vaultKey);
    const store = await client.vectorStores.create({ name: 'kb' });
    const returns = await addText(store.id, 'returns.md', 'Our return policy: items can be returned within 30 days of delivery for a full refund.', { topic: 'returns', year: 2024 });
    expect(returns).toMatchObject({ object: 'vector_store.file', vector_store_id: store.id, status: 'in_progress', attributes: { topic: 'returns', year: 2024 } });
    expect(returns.id).toMatch(/^file-/);
    await addText(store.id, 'shipping.md', 'Shipping takes three to five business days. Express shipping arrives the next day.', { topic: 'shipping', year: 2023 });
    await addText(store.id, 'warranty.md', 'The warranty covers manufacturing defects for two years from the purchase date.', { topic: 'warranty', year: 2025 });
    const polled = await client.vectorStores.files.poll(store.id, returns.id, { pollIntervalMs: 20 });
    expect(polled.status).toBe('completed');
    await gw.gateway.app.vectorStores.idle();
    // The `igw serve` dashboard lists each ingestion with its outcome.
    const ingestions = gw.gateway.app.activity.snapshot().tasks.filter((task) => task.kind === 'ingestion');
    expect(ingestions.find((task) => task.id === returns.id)).toMatchObject({ status: 'completed', label: `returns.md → ${store.name}` });

    const retrieved = await client.vectorStores.retrieve(store.id);
    expect(retrieved.file_counts).toEqual({ in_progress: 0, completed: 3, failed: 0, cancelled: 0, total: 3 });
    expect(retrieved.status).toBe('completed');
    expect(retrieved.usage_bytes).toBeGreaterThan(3 * 384 * 4);

    const results = await client.vectorStores.search(store.id, { query: 'How many days do I have to return an item for a refund?' });
    expect(results.data[0]).toMatchObject({ file_id: returns.id, filename: 'returns.md', attributes: { topic: 'returns', year: 2024 } });
    expect(results.data[0]!.content[0]).toEqual({ type: 'text', text: expect.stringContaining('return policy') });
    const scores = results.data.map((result) => result.score);
    expect(scores).toEqual([...scores].sort((left, right) => right - left));

    const filtered = await client.vectorStores.search(store.id, { query: 'return policy refund', filters: { type: 'gte', key: 'year', value: 2025 } });
    expect(filtered.data.map((result) => result.filename)).toEqual(['warranty.md']);
    const compound = await client.vectorStores.search(store.id, {
      query: 'delivery',
      filters: { type: 'or', filters: [{ type: 'eq', key: 'topic', value: 'shipping' }, { type: 'eq', key: 'topic', value: 'returns' }] },
      max_num_results: 1,
    });
    expect(compound.data).toHaveLength(1);

    const rewritten = await postJson(`${gw.url}/v1/vector_stores/${store.id}/search`, vaultKey, { query: 'What is the Return Policy?', rewrite_query: true });
    expect(rewritten.json).toMatchObject({ object: 'vector_store.search_results', search_query: 'return policy' });
    const strict = await client.vectorStores.search(store.id, { query: 'return policy', ranking_options: { score_threshold: 0.99 } });
    expect(strict.data).toEqual([]);

    const content = await client.vectorStores.files.content(returns.id, { vector_store_id: store.id });
    expect(content.data.map((part) => part.text).join(' ')).toContain('return policy');

    const updated = await client.vectorStores.files.update(returns.id, { vector_store_id: store.id, attributes: { topic: 'refunds' } });
    expect(updated.attributes).toEqual({ topic: 'refunds' });
    const byNewAttribute = await client.vectorStores.search(store.id, { query: 'refund', filters: { type: 'eq', key: 'topic', value: 'refunds' } });
    expect(byNewAttribute.data.map((result) => result.file_id)).toEqual([returns.id]);

    const files = await client.vectorStores.files.list(store.id, { order: 'asc' });
    expect(files.data.map((file) => file.id)[0]).toBe(returns.id);
    expect(files.data).toHaveLength(3);

    expect(await client.vectorStores.files.delete(returns.id, { vector_store_id: store.id })).toEqual({ id: returns.id, object: 'vector_store.file.deleted', deleted: true });
    const after = await client.vectorStores.search(store.id, { query: 'return policy refund' });
    expect(after.data.map((result) => result.file_id)).not.toContain(returns.id);
    await expect(client.vectorStores.files.retrieve(returns.id, { vector_store_id: store.id })).rejects.toMatchObject({ status: 404 });
  });

  it('answers errors in the vector-store envelope', async () => {
    const store = await gw.openai(vaultKey).vectorStores.create({ name: 'errors' });
    const noVault = await postJson(`${gw.url}/v1/vector_stores`, gw.key, { name: 'x' });
    expect(noVault.status).toBe(403);
    expect(noVault.json).toEqual({ error: { message: expect.any(String), type: 'authentication_error', param: null, code: 'insufficient_permissions' } });

    const readOnly = await gw.newKey({ name: 'reader', vault: true, scopes: ['kit.knowledge.read'] });
    const refused = await postJson(`${gw.url}/v1/vector_stores`, readOnly, { name: 'x' });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ type: 'authentication_error', code: 'AUTH_1015' });
    const searchWithRead = await postJson(`${gw.url}/v1/vector_stores/${store.id}/search`, readOnly, { query: 'anything' });
    expect(searchWithRead.status).toBe(200);

    const missingKey = await fetch(`${gw.url}/v1/vector_stores`);
    expect(missingKey.status).toBe(401);
    expect(((await missingKey.json()) as any).error).toMatchObject({ type: 'authentication_error', param: null });

    const notFound = await fetch(`${gw.url}/v1/vector_stores/00000000-0000-0000-0000-000000000000`, { headers: { authorization: `Bearer ${vaultKey}` } });
    expect(notFound.status).toBe(404);
    expect(((await notFound.json()) as any).error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining('No vector store') });

    const cases: Array<[string, unknown, string]> = [
      [`/v1/vector_stores/${store.id}/search`, { query: '' }, 'query'],
      [`/v1/vector_stores/${store.id}/search`, { query: '   ' }, 'query'],
      [`/v1/vector_stores/${store.id}/search`, { query: 'x', filters: { type: 'like', key: 'a', value: 1 } }, 'filters.type'],
      [`/v1/vector_stores/${store.id}/search`, { query: 'x', filters: { type: 'and', filters: [] } }, 'filters.filters'],
      [`/v1/vector_stores/${store.id}/search`, { query: 'x', filters: { type: 'eq', key: 'a' } }, 'filters.value'],
      [`/v1/vector_stores/${store.id}/search`, { query: 'x', max_num_results: 51 }, 'max_num_results'],
      ['/v1/vector_stores', { expires_after: { anchor: 'last_active_at', days: 0 } }, 'expires_after.days'],
      ['/v1/vector_stores', { expires_after: { anchor: 'last_active_at', days: -3 } }, 'expires_after.days'],
      ['/v1/vector_stores', { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v'])) }, 'metadata'],
      ['/v1/vector_stores', { embedding_model: 'local-echo' }, 'model'],
    ];
    for (const [path, body, param] of cases) {
      const response = await postJson(`${gw.url}${path}`, vaultKey, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json.error, JSON.stringify(body)).toMatchObject({ type: 'invalid_request_error', param });
    }
  });

  it('refuses a private address for sources/url unless allowed (the reason is the file error)', async () => {
    const client = gw.openai(vaultKey);
    const store = await client.vectorStores.create({ name: 'web' });
    const added = await postJson(`${gw.url}/v1/vector_stores/${store.id}/sources/url`, vaultKey, { url: `${gw.url}/v1/models` });
    expect(added.status).toBe(200);
    const failed = await client.vectorStores.files.poll(store.id, added.json.id, { pollIntervalMs: 20 });
    expect(failed.status).toBe('failed');
    expect(failed.last_error).toMatchObject({ code: 'invalid_file', message: expect.stringMatching(/private|loopback/i) });
  });

  it('keeps each account to its own stores', async () => {
    await createAccount(gw.gateway.app.store, gw.config, 'someone-else');
    const other = await gw.newKey({ name: 'other', vault: true, account: 'someone-else' });
    const mine = await gw.openai(vaultKey).vectorStores.create({ name: 'private' });
    await expect(gw.openai(other).vectorStores.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
    const theirs = await gw.openai(other).vectorStores.list();
    expect(theirs.data.map((store) => store.id)).not.toContain(mine.id);
  });
});
