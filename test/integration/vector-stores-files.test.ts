import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, upstreamConfig, type TestGateway } from '../helpers/gateway.js';

const RETURNS = 'Our return policy: items can be returned within 30 days of delivery for a full refund.';
const SHIPPING = 'Shipping takes three to five business days. Express shipping arrives the next day.';

/** Files of the Files API attached to stores, uploads, file batches, content pages and URL sources. */
describe('vector store files', () => {
  let gw: TestGateway;
  let key: string;
  let pages: Server;
  let pagesUrl: string;

  beforeAll(async () => {
    gw = await startTestGateway({ server: { allow_private_urls: true } });
    key = await gw.newKey({ name: 'kb', vault: true });
    pages = createServer((request, response) => {
      if (request.url === '/article.html') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(
          '<!doctype html><html><head><title>Tide tables</title></head><body><nav>Home | About</nav><article><h1>Tide tables</h1>' +
            '<p>High tide at the harbour comes twice a day, about twelve hours and twenty-five minutes apart.</p>' +
            '<p>Spring tides follow the full and new moon and bring the highest high waters of the month.</p></article></body></html>',
        );
        return;
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await gw.close();
    await new Promise((resolve) => pages.close(resolve));
  });

  it('attaches uploaded files (idempotent per id; identical content under two ids is kept twice)', async () => {
    const client = gw.openai(key);
    const store = await client.vectorStores.create({ name: 'files' });
    const uploaded = await client.vectorStores.files.uploadAndPoll(store.id, await toFile(Buffer.from(RETURNS), 'returns.txt'), { pollIntervalMs: 20 });
    expect(uploaded).toMatchObject({ object: 'vector_store.file', status: 'completed', last_error: null, chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 } } });
    expect(uploaded.usage_bytes).toBeGreaterThan(384 * 4);

    const again = await client.vectorStores.files.create(store.id, { file_id: uploaded.id });
    expect(again.id).toBe(uploaded.id);
    const twin = await client.files.create({ file: await toFile(Buffer.from(RETURNS), 'returns-copy.txt'), purpose: 'assistants' });
    const attached = await client.vectorStores.files.createAndPoll(store.id, { file_id: twin.id, attributes: { copy: true } }, { pollIntervalMs: 20 });
    expect(attached).toMatchObject({ id: twin.id, status: 'completed', attributes: { copy: true } });
    const retrieved = await client.vectorStores.retrieve(store.id);
    expect(retrieved.file_counts).toMatchObject({ completed: 2, total: 2 });
    const results = await client.vectorStores.search(store.id, { query: 'return policy refund' });
    expect(new Set(results.data.map((result) => result.file_id))).toEqual(new Set([uploaded.id, twin.id]));
    expect(results.data.map((result) => result.filename).sort()).toEqual(['returns-copy.txt', 'returns.txt']);

    await expect(client.vectorStores.files.create(store.id, { file_id: 'file-doesnotexist' })).rejects.toMatchObject({ status: 404 });
    const badChunking = await postJson(`${gw.url}/v1/vector_stores/${store.id}/files`, key, { file_id: twin.id, chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 50, chunk_overlap_tokens: 0 } } });
    // Same id again is idempotent, so the strategy is not even looked at; a new id with it is refused.
    expect(badChunking.status).toBe(200);
    const third = await client.files.create({ file: await toFile(Buffer.from(SHIPPING), 'shipping.txt'), purpose: 'assistants' });
    for (const strategy of [{ type: 'static', static: { max_chunk_size_tokens: 50, chunk_overlap_tokens: 0 } }, { type: 'static', static: { max_chunk_size_tokens: 200, chunk_overlap_tokens: 101 } }, { type: 'weird' }]) {
      const refused = await postJson(`${gw.url}/v1/vector_stores/${store.id}/files`, key, { file_id: third.id, chunking_strategy: strategy });
      expect(refused.status, JSON.stringify(strategy)).toBe(400);
      expect(refused.json.error.param).toMatch(/^chunking_strategy/);
    }
  });

  it('creates a store with file_ids and uploads straight into a store', async () => {
    const client = gw.openai(key);
    const file = await client.files.create({ file: await toFile(Buffer.from(SHIPPING), 'shipping.txt'), purpose: 'assistants' });
    const store = await client.vectorStores.create({ name: 'with files', file_ids: [file.id], chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 200, chunk_overlap_tokens: 50 } } });
    expect(store.file_counts.total).toBe(1);
    const polled = await client.vectorStores.files.poll(store.id, file.id, { pollIntervalMs: 20 });
    expect(polled.chunking_strategy).toEqual({ type: 'static', static: { max_chunk_size_tokens: 200, chunk_overlap_tokens: 50 } });

    const form = new FormData();
    form.set('file', new Blob([RETURNS], { type: 'text/plain' }), 'upload.txt');
    form.set('attributes', JSON.stringify({ source: 'upload' }));
    const response = await fetch(`${gw.url}/v1/vector_stores/${store.id}/files/upload`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    expect(response.status).toBe(200);
    const uploaded = (await response.json()) as any;
    expect(uploaded).toMatchObject({ object: 'vector_store.file', vector_store_id: store.id, attributes: { source: 'upload' } });
    expect((await client.files.retrieve(uploaded.id)).purpose).toBe('assistants');
    expect((await client.vectorStores.files.poll(store.id, uploaded.id, { pollIntervalMs: 20 })).status).toBe('completed');
  });

  it('runs file batches and lists their files', async () => {
    const client = gw.openai(key);
    const store = await client.vectorStores.create({ name: 'batches' });
    const batch = await client.vectorStores.fileBatches.uploadAndPoll(
      store.id,
      { files: [await toFile(Buffer.from(RETURNS), 'a.txt'), await toFile(Buffer.from(SHIPPING), 'b.txt')] },
      { pollIntervalMs: 20 },
    );
    expect(batch).toMatchObject({ object: 'vector_store.file_batch', vector_store_id: store.id, status: 'completed', file_counts: { completed: 2, total: 2 } });
    const files = await client.vectorStores.fileBatches.listFiles(batch.id, { vector_store_id: store.id });
    expect(files.data).toHaveLength(2);
    expect(await client.vectorStores.fileBatches.retrieve(batch.id, { vector_store_id: store.id })).toMatchObject({ id: batch.id, status: 'completed' });
    await expect(client.vectorStores.fileBatches.retrieve('vsfb_missing', { vector_store_id: store.id })).rejects.toMatchObject({ status: 404 });
  });

  it('pages file content', async () => {
    const client = gw.openai(key);
    const store = await client.vectorStores.create({ name: 'pages' });
    const paragraphs = Array.from({ length: 160 }, (_, index) => `Paragraph ${index}: ${'the quick brown fox jumps over the lazy dog '.repeat(10).trim()}.`);
    const added = await postJson(`${gw.url}/v1/vector_stores/${store.id}/sources/text`, key, {
      name: 'long.txt',
      text: paragraphs.join('\n\n'),
      chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 0 } },
    });
    await client.vectorStores.files.poll(store.id, added.json.id, { pollIntervalMs: 20 });
    const first = await fetch(`${gw.url}/v1/vector_stores/${store.id}/files/${added.json.id}/content`, { headers: { authorization: `Bearer ${key}` } }).then((response) => response.json() as Promise<any>);
    expect(first).toMatchObject({ object: 'vector_store.file_content.page', has_more: true, next_page: '100' });
    expect(first.data).toHaveLength(100);
    const second = await fetch(`${gw.url}/v1/vector_stores/${store.id}/files/${added.json.id}/content?page=${first.next_page}`, { headers: { authorization: `Bearer ${key}` } }).then(
      (response) => response.json() as Promise<any>,
    );
    expect(second.has_more).toBe(false);
    expect(second.next_page).toBeNull();
    expect(first.data.length + second.data.length).toBeGreaterThan(100);
    expect(first.data.concat(second.data).every((part: any) => part.type === 'text' && part.text.length > 0)).toBe(true);
  });

  it('ingests a web page (article text) and records a refused URL as the file error', async () => {
    const client = gw.openai(key);
    const store = await client.vectorStores.create({ name: 'web' });
    const added = await postJson(`${gw.url}/v1/vector_stores/${store.id}/sources/url`, key, { url: `${pagesUrl}/article.html` });
    expect(added.status).toBe(200);
    const page = await client.vectorStores.files.poll(store.id, added.json.id, { pollIntervalMs: 20 });
    expect(page.status).toBe('completed');
    const results = await client.vectorStores.search(store.id, { query: 'when is high tide' });
    expect(results.data[0]!.content[0]!.text).toContain('High tide');

    const missing = await postJson(`${gw.url}/v1/vector_stores/${store.id}/sources/url`, key, { url: `${pagesUrl}/missing.html` });
    const failed = await client.vectorStores.files.poll(store.id, missing.json.id, { pollIntervalMs: 20 });
    expect(failed.status).toBe('failed');
    expect(failed.last_error).toMatchObject({ code: expect.any(String), message: expect.any(String) });

    for (const url of ['ftp://example.com/a', 'not a url']) {
      const refused = await postJson(`${gw.url}/v1/vector_stores/${store.id}/sources/url`, key, { url });
      expect(refused.status).toBe(400);
      expect(refused.json.error.param).toBe('url');
    }
  });
});

describe('file batch cancel', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;
  let key: string;

  beforeAll(async () => {
    // Texts with "slow" never get their embeddings: they stay in progress until cancelled.
    upstream = await startFakeUpstream((request) => {
      const inputs = request.body.input as string[];
      if (inputs.some((input) => input.includes('slow'))) return { hang: true };
      return { json: { object: 'list', data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [1, index, 0] })), usage: { prompt_tokens: 3, total_tokens: 3 } } };
    });
    gw = await startTestGateway(upstreamConfig(upstream.url));
    key = await gw.newKey({ name: 'kb', vault: true });
  });
  afterAll(async () => {
    await gw.close();
    await upstream.close();
  });

  it('cancels unfinished files and keeps finished ones', async () => {
    const client = gw.openai(key);
    const store = await client.vectorStores.create({ name: 'cancel', embedding_model: 'up-embed' } as any);
    const ids: string[] = [];
    for (const text of ['fast one', 'fast two', 'slow one', 'slow two']) ids.push((await client.files.create({ file: await toFile(Buffer.from(text), `${text}.txt`), purpose: 'assistants' })).id);
    const batch = await client.vectorStores.fileBatches.create(store.id, { file_ids: ids });
    expect(batch.status).toBe('in_progress');
    for (const id of ids.slice(0, 2)) expect((await client.vectorStores.files.poll(store.id, id, { pollIntervalMs: 20 })).status).toBe('completed');
    const cancelled = await client.vectorStores.fileBatches.cancel(batch.id, { vector_store_id: store.id });
    expect(cancelled).toMatchObject({ status: 'cancelled', file_counts: { completed: 2, cancelled: 2, in_progress: 0, total: 4 } });
    const listed = await client.vectorStores.fileBatches.listFiles(batch.id, { vector_store_id: store.id, filter: 'cancelled' });
    expect(listed.data.map((file) => file.id).sort()).toEqual(ids.slice(2).sort());
    expect((await client.vectorStores.retrieve(store.id)).status).toBe('completed');
  });
});
