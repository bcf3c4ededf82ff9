import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKey } from '../../src/admin/keys-admin.js';
import { startGateway, type Gateway } from '../../src/app/gateway.js';
import { buildConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/util/logger.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, upstreamConfig } from '../helpers/gateway.js';

/** Three-dimensional embeddings that separate the words the test uses. */
function embed(text: string): number[] {
  const lower = text.toLowerCase();
  return [lower.includes('apple') ? 1 : 0.01, lower.includes('river') ? 1 : 0.01, lower.includes('engine') ? 1 : 0.01];
}

describe('vector store ingestion across a restart', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('resumes files left in progress when the gateway stopped, and bills the embeddings', async () => {
    let healthy = false;
    const upstream: FakeUpstream = await startFakeUpstream((request) => {
      if (!request.path.endsWith('/embeddings')) return { status: 404, json: {} };
      if (!healthy) return { hang: true };
      const inputs = request.body.input as string[];
      return { json: { object: 'list', data: inputs.map((input, index) => ({ object: 'embedding', index, embedding: embed(input) })), usage: { prompt_tokens: 7 * inputs.length, total_tokens: 7 * inputs.length } } };
    });
    cleanups.push(() => upstream.close());
    const dataDir = await mkdtemp(path.join(tmpdir(), 'igw-vs-resume-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const config = buildConfig(upstreamConfig(upstream.url), null, {});
    const start = () => startGateway({ dataDir, config, port: 0, host: '127.0.0.1', logger: silentLogger });

    let gateway: Gateway = await start();
    const { key } = await createKey(gateway.app.store, config, { name: 'kb', vault: true });
    const created = await postJson(`${gateway.url}/v1/vector_stores`, key, { name: 'resume', embedding_model: 'up-embed' });
    expect(created.status).toBe(200);
    const storeId = created.json.id as string;
    const fileIds: string[] = [];
    for (const text of ['An apple a day.', 'The river runs deep.', 'The engine starts.']) {
      const added = await postJson(`${gateway.url}/v1/vector_stores/${storeId}/sources/text`, key, { name: `${text.split(' ')[1]}.txt`, text });
      fileIds.push(added.json.id);
    }
    // The upstream hangs: nothing can finish. Stop the gateway mid-ingestion.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await gateway.close();

    healthy = true;
    gateway = await start();
    cleanups.push(() => gateway.close());
    await gateway.app.vectorStores.idle();
    const store = await fetch(`${gateway.url}/v1/vector_stores/${storeId}`, { headers: { authorization: `Bearer ${key}` } }).then((response) => response.json() as Promise<any>);
    expect(store.file_counts).toEqual({ in_progress: 0, completed: 3, failed: 0, cancelled: 0, total: 3 });
    expect(store.usage_bytes).toBeGreaterThan(0);
    const search = await postJson(`${gateway.url}/v1/vector_stores/${storeId}/search`, key, { query: 'river' });
    expect(search.json.data[0]).toMatchObject({ file_id: fileIds[1], filename: 'river.txt' });

    // Ingestion and the query were metered like POST /v1/embeddings: request-log lines with their tokens and cost.
    await gateway.close();
    const folder = path.join(dataDir, 'logs');
    const entries = (await Promise.all((await readdir(folder)).map((name) => readFile(path.join(folder, name), 'utf8'))))
      .join('')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line));
    const ingests = entries.filter((entry) => entry.endpoint.includes('(ingest)'));
    expect(ingests).toHaveLength(3);
    expect(ingests[0]).toMatchObject({ account: 'default', model: 'up-embed', provider: 'up', input_tokens: 7, status: 200 });
    expect(Number(ingests[0].eur)).toBeGreaterThan(0);
    const searchLine = entries.find((entry) => entry.endpoint === '/v1/vector_stores/{vector_store_id}/search');
    expect(searchLine).toMatchObject({ model: 'up-embed', input_tokens: 7 });
  }, 30_000);
});
