import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKey } from '../../src/admin/keys-admin.js';
import { startGateway, type Gateway } from '../../src/app/gateway.js';
import { buildConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/util/logger.js';
import { postJson } from '../helpers/gateway.js';

const DAY_MS = 86_400_000;

describe('vector store expiry (expires_after, anchor last_active_at)', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('moves with activity, then reports expired and removes the data', async () => {
    let now = Date.UTC(2026, 0, 1);
    const clock = { now: () => now };
    const dataDir = await mkdtemp(path.join(tmpdir(), 'igw-vs-expiry-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const config = buildConfig({}, null, {});
    const gateway: Gateway = await startGateway({ dataDir, config, port: 0, host: '127.0.0.1', logger: silentLogger, clock });
    cleanups.push(() => gateway.close());
    const { key } = await createKey(gateway.app.store, config, { name: 'kb', vault: true }, Math.floor(now / 1000));
    const get = async (storeId: string) => (await fetch(`${gateway.url}/v1/vector_stores/${storeId}`, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<any>;

    const created = (await postJson(`${gateway.url}/v1/vector_stores`, key, { name: 'short-lived', expires_after: { anchor: 'last_active_at', days: 2 } })).json;
    const kept = (await postJson(`${gateway.url}/v1/vector_stores`, key, { name: 'kept' })).json;
    expect(created.expires_at).toBe(Math.floor(now / 1000) + 2 * 86_400);
    await postJson(`${gateway.url}/v1/vector_stores/${created.id}/sources/text`, key, { name: 'a.txt', text: 'Some text worth keeping for a while.' });
    await gateway.app.vectorStores.idle();

    // A search a day and a half later is activity: the expiry moves.
    now += 1.5 * DAY_MS;
    expect((await postJson(`${gateway.url}/v1/vector_stores/${created.id}/search`, key, { query: 'text' })).status).toBe(200);
    now += 1.5 * DAY_MS;
    const alive = await get(created.id);
    expect(alive.status).toBe('completed');
    expect(alive.file_counts.completed).toBe(1);
    expect(alive.expires_at).toBe(Math.floor((now - 1.5 * DAY_MS) / 1000) + 2 * 86_400);

    now += 1 * DAY_MS;
    const expired = await get(created.id);
    expect(expired).toMatchObject({ status: 'expired', usage_bytes: 0, file_counts: { total: 0 } });
    const storeFolders = await readdir(path.join(dataDir, 'vector_stores'));
    expect(storeFolders).not.toContain(created.id);
    const search = await postJson(`${gateway.url}/v1/vector_stores/${created.id}/search`, key, { query: 'text' });
    expect(search.status).toBe(400);
    expect(search.json.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining('expired') });
    expect((await get(kept.id)).status).toBe('completed');
  });
});
