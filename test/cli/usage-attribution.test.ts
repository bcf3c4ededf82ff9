import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chat, cleanupAll, igw, igwJson, makeSandbox, startServer, type Sandbox } from '../helpers/cli.js';

/** Every request that presented a valid key is logged with it; `igw usage --by key` shows names. */

interface UsageRow {
  group: string;
  name?: string | null;
  requests: number;
  errors: number;
  input_tokens: number;
}

interface UsageReport {
  rows: UsageRow[];
  total: UsageRow;
}

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

async function post(url: string, key: string, route: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${route}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

async function waitForFile(url: string, key: string, storeId: string, fileId: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await fetch(`${url}/v1/vector_stores/${storeId}/files/${fileId}`, { headers: { authorization: `Bearer ${key}` } });
    const file = (await response.json()) as { status: string };
    if (file.status !== 'in_progress' || Date.now() > deadline) return file.status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('usage attribution', () => {
  it('429s, 403s and ingestion embeddings are logged with the key; --by key shows names', async () => {
    // A plan of one request a minute makes the second request a 429.
    await writeFile(path.join(sandbox.cwd, 'igw.config.json'), JSON.stringify({ plans: { tiny: { benefits: ['api_usage'], requests_per_minute: 1 } } }));
    await igw(sandbox, ['accounts', 'create', 'small', '--plan', 'tiny']);
    const limited = await igwJson<{ id: string; key: string }>(sandbox, ['keys', 'create', '--name', 'limited', '--account', 'small', '--json']);
    const chatOnly = await igwJson<{ id: string; key: string }>(sandbox, ['keys', 'create', '--name', 'chat-only', '--scopes', 'inference.chat', '--json']);
    const uploader = await igwJson<{ id: string; key: string }>(sandbox, ['keys', 'create', '--name', 'uploader', '--vault', '--json']);
    const server = await startServer(sandbox);

    expect((await chat(server.url, limited.key)).status).toBe(200);
    expect((await chat(server.url, limited.key)).status).toBe(429);
    expect((await post(server.url, chatOnly.key, '/v1/embeddings', { model: 'local-embed', input: 'x' })).status).toBe(403);

    const store = await post(server.url, uploader.key, '/v1/vector_stores', { name: 'notes' });
    expect(store.status).toBe(200);
    const file = await post(server.url, uploader.key, `/v1/vector_stores/${store.body.id}/sources/text`, { name: 'a.md', text: 'igw keeps a request log of every call, embeddings included.' });
    expect(file.status).toBe(200);
    expect(await waitForFile(server.url, uploader.key, store.body.id, file.body.id)).toBe('completed');
    expect((await server.stop()).exitCode).toBe(0);

    const report = await igwJson<UsageReport>(sandbox, ['usage', '--by', 'key', '--json']);
    const row = (id: string) => report.rows.find((candidate) => candidate.group === id);
    expect(row(limited.id)).toMatchObject({ name: 'limited', requests: 2, errors: 1 });
    expect(row(chatOnly.id)).toMatchObject({ name: 'chat-only', requests: 1, errors: 1 });
    // create store + add text + 1 file poll or more, and the ingestion's embedding call with its tokens.
    expect(row(uploader.id)!.name).toBe('uploader');
    expect(row(uploader.id)!.input_tokens).toBeGreaterThan(0);
    expect(report.rows.find((candidate) => candidate.group === '(no key)')).toBeUndefined();

    const ingest = await igwJson<UsageReport>(sandbox, ['usage', '--by', 'model', '--json']);
    expect(ingest.rows.find((candidate) => candidate.group === 'local-embed')?.requests).toBe(1);

    const table = await igw(sandbox, ['usage', '--by', 'key']);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toMatch(/^KEY\s+KEY ID\s+REQUESTS/);
    expect(lines.find((line) => line.startsWith('limited '))).toContain(limited.id);
    expect(lines.find((line) => line.startsWith('uploader '))).toContain(uploader.id);
  });
});
