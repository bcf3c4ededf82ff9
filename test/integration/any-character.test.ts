import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileLines, uploadBatchFile, waitForBatch } from '../helpers/batches.js';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const NUL = '\u0000';

/**
 * A client may send any character JSON can carry, U+0000 included, in any string it owns
 * (metadata, names, custom_id, unknown field names). Whatever holds the data — the data dir or
 * PostgreSQL, whose text and jsonb refuse U+0000 — it comes back as sent, and nothing is refused or
 * lost for it. Runs in both projects of the test matrix.
 */
describe('strings with U+0000 from clients', () => {
  let gateway: TestGateway;
  let vaultKey: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    vaultKey = await gateway.newKey({ name: 'kb', vault: true });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('a chat request naming an unknown field with U+0000 is answered and logged', async () => {
    const odd = `odd${NUL}field`;
    const answer = await postJson(`${gateway.url}/v1/chat/completions`, gateway.key, { model: 'local-echo', messages: [{ role: 'user', content: `a${NUL}b` }], [odd]: 1 });
    expect(answer.status).toBe(200);
    const requestId = answer.headers.get('x-request-id');
    await gateway.gateway.app.store.requestLog.flush();
    const lines = await gateway.gateway.app.store.requestLog.readSince(Date.now() - 60_000);
    const line = lines.find((entry) => entry.request_id === requestId);
    expect(line).toBeDefined();
    expect(JSON.stringify(line)).toContain(JSON.stringify(odd).slice(1, -1));
  });

  it('a batch with U+0000 in its metadata and a custom_id runs, and both come back as sent', async () => {
    const client = gateway.openai();
    const customId = `row${NUL}1`;
    const input = `${JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model: 'local-echo', messages: [{ role: 'user', content: 'hi' }] } })}\n`;
    const fileId = await uploadBatchFile(client, input);
    const created = await client.batches.create({ input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { note: `a${NUL}b` } });
    expect(created.metadata).toEqual({ note: `a${NUL}b` });
    const done = await waitForBatch(client, created.id);
    expect(done.status).toBe('succeeded');
    expect((await client.batches.retrieve(created.id)).metadata).toEqual({ note: `a${NUL}b` });
    const lines = await fileLines(client, done.output_file_id);
    expect(lines.map((line) => line.custom_id)).toEqual([customId]);
  });

  it('a vector store named with U+0000 keeps its name and metadata', async () => {
    const client = gateway.openai(vaultKey);
    const store = await client.vectorStores.create({ name: `kb${NUL}x`, metadata: { owner: `me${NUL}` } });
    const again = await client.vectorStores.retrieve(store.id);
    expect([again.name, again.metadata]).toEqual([`kb${NUL}x`, { owner: `me${NUL}` }]);
  });
});
