import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/admin/accounts-admin.js';
import { chatLine, chatLines, fileLines, uploadBatchFile, waitForBatch } from '../helpers/batches.js';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
let client: OpenAI;
beforeAll(async () => {
  gw = await startTestGateway({ batches: { concurrency: 4, max_requests_per_file: 5 } });
  client = gw.openai();
});
afterAll(async () => {
  await gw.close();
});

async function sdkError(run: Promise<unknown>): Promise<{ status: number; code: string; details: any; message: string }> {
  try {
    await run;
  } catch (error) {
    if (error instanceof OpenAI.APIError) {
      const body = error.error as { code: string; details?: unknown; message: string };
      return { status: error.status!, code: body.code, details: body.details, message: body.message };
    }
    throw error;
  }
  throw new Error('expected an API error');
}

describe('official openai SDK: batches', () => {
  it('create → retrieve until succeeded → output and error files, one line per row', async () => {
    const text = [chatLine('a', 'first'), chatLine('b', 'second'), chatLine('c', 'third', 'no-such-model')].join('\n');
    const created = await client.batches.create({ input_file_id: await uploadBatchFile(client, text), endpoint: '/v1/chat/completions', completion_window: '24h', metadata: { job: 'nightly' } });
    expect(created).toMatchObject({ object: 'batch', endpoint: '/v1/chat/completions', status: 'queued', completion_window: '24h', metadata: { job: 'nightly' }, output_file_id: null });
    expect(created.id).toMatch(/^batch_/);
    expect(created.expires_at).toBe(created.created_at + 86_400);
    expect((created.request_counts as unknown as Record<string, number>)).toMatchObject({ processing: 3, succeeded: 0, errored: 0 });

    const done = await waitForBatch(client, created.id);
    expect(done.status).toBe('succeeded');
    expect(done.request_counts as unknown as Record<string, number>).toMatchObject({ processing: 0, succeeded: 2, errored: 1, total: 3 });
    expect(done.in_progress_at).not.toBeNull();
    expect(done.finalizing_at).not.toBeNull();
    expect(done.completed_at).not.toBeNull();

    const output = await fileLines(client, done.output_file_id);
    expect(output.map((line) => line.custom_id).sort()).toEqual(['a', 'b']);
    for (const line of output) {
      expect(line.error).toBeNull();
      expect(line.id).toMatch(/^batch_req_/);
      expect(line.response).toMatchObject({ status_code: 200, body: { object: 'chat.completion', model: 'local-echo' } });
      expect(line.response.request_id).toMatch(/^req_/);
      expect(line.response.body.billing_cost).toBeDefined();
      expect(line.response.body.environment_impact).toBeDefined();
    }
    expect(output.find((line) => line.custom_id === 'a').response.body.choices[0].message.content).toBe('first');
    const errors = await fileLines(client, done.error_file_id);
    expect(errors).toEqual([{ id: expect.stringMatching(/^batch_req_/), custom_id: 'c', response: null, error: { code: 'INFERENCE_3001', message: expect.any(String) } }]);
    expect((await client.files.retrieve(done.output_file_id!)).purpose).toBe('batch_output');
  });

  it('embeddings batches run through the embeddings endpoint', async () => {
    const text = ['x', 'y'].map((id) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/embeddings', body: { model: 'local-embed', input: `text ${id}` } })).join('\n');
    const batch = await waitForBatch(client, (await client.batches.create({ input_file_id: await uploadBatchFile(client, text), endpoint: '/v1/embeddings', completion_window: '24h' })).id);
    const output = await fileLines(client, batch.output_file_id);
    expect(output).toHaveLength(2);
    expect(output[0].response.body.data[0].embedding).toHaveLength(384);
  });

  it('a row asking for stream gets a per-row error', async () => {
    const text = JSON.stringify({ custom_id: 's', method: 'POST', url: '/v1/chat/completions', body: { model: 'local-echo', stream: true, messages: [{ role: 'user', content: 'x' }] } });
    const batch = await waitForBatch(client, (await client.batches.create({ input_file_id: await uploadBatchFile(client, text), endpoint: '/v1/chat/completions', completion_window: '24h' })).id);
    expect(batch.status).toBe('succeeded');
    expect((await fileLines(client, batch.error_file_id))[0].error.code).toBe('VALIDATION_4005');
  });

  it('list: newest first, limit, after, has_more, first_id, last_id', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      ids.push((await client.batches.create({ input_file_id: await uploadBatchFile(client, chatLines(1)), endpoint: '/v1/chat/completions', completion_window: '24h' })).id);
    }
    const page = await fetch(`${gw.url}/v1/batches?limit=2`, { headers: { authorization: `Bearer ${gw.key}` } }).then((response) => response.json() as Promise<any>);
    expect(page).toMatchObject({ object: 'list', first_id: ids[2], last_id: ids[1], has_more: true });
    expect(page.data.map((batch: { id: string }) => batch.id)).toEqual([ids[2], ids[1]]);
    const next = await client.batches.list({ limit: 1, after: ids[1] });
    expect(next.data.map((batch) => batch.id)).toEqual([ids[0]]);
    const sdkPage = await client.batches.list();
    expect(sdkPage.data.length).toBeGreaterThanOrEqual(3);
  });

  it('cancel of a finished batch is refused; of an unknown batch is not found', async () => {
    const batch = await waitForBatch(client, (await client.batches.create({ input_file_id: await uploadBatchFile(client, chatLines(1)), endpoint: '/v1/chat/completions', completion_window: '24h' })).id);
    expect(await sdkError(client.batches.cancel(batch.id))).toMatchObject({ status: 409, code: 'RESOURCE_5412' });
    expect(await sdkError(client.batches.cancel('batch_nope'))).toMatchObject({ status: 404, code: 'RESOURCE_5411' });
    expect(await sdkError(client.batches.retrieve('batch_nope'))).toMatchObject({ status: 404, code: 'RESOURCE_5411' });
  });

  it("another account's batch is not found", async () => {
    const batch = await client.batches.create({ input_file_id: await uploadBatchFile(client, chatLines(1)), endpoint: '/v1/chat/completions', completion_window: '24h' });
    await createAccount(gw.gateway.app.store, gw.config, 'other-batches');
    const other = gw.openai(await gw.newKey({ account: 'other-batches' }));
    expect(await sdkError(other.batches.retrieve(batch.id))).toMatchObject({ status: 404, code: 'RESOURCE_5411' });
    expect(await sdkError(other.batches.cancel(batch.id))).toMatchObject({ status: 404 });
    expect((await other.batches.list()).data).toEqual([]);
  });
});

describe('batch create: every error code', () => {
  const create = (body: Record<string, unknown>, key = gw.key) => postJson(`${gw.url}/v1/batches`, key, body);

  it.each<{ name: string; text: () => string; code: string; status: number; line?: number | null }>([
    { name: 'a line that does not parse → 3306 with its line number', text: () => [chatLine('a', 'x'), '{"custom_id": "b",', chatLine('c', 'y')].join('\n'), code: 'INFERENCE_3306', status: 400, line: 2 },
    { name: 'duplicate custom_id → 3303', text: () => [chatLine('a', 'x'), chatLine('b', 'y'), chatLine('a', 'z')].join('\n'), code: 'INFERENCE_3303', status: 400, line: 3 },
    { name: 'a line for another endpoint → 3303', text: () => [chatLine('a', 'x'), JSON.stringify({ custom_id: 'b', method: 'POST', url: '/v1/embeddings', body: {} })].join('\n'), code: 'INFERENCE_3303', status: 400, line: 2 },
    { name: 'a line without body → 3303', text: () => JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/chat/completions' }), code: 'INFERENCE_3303', status: 400, line: 1 },
    { name: 'method GET → 3303', text: () => JSON.stringify({ custom_id: 'a', method: 'GET', url: '/v1/chat/completions', body: {} }), code: 'INFERENCE_3303', status: 400, line: 1 },
    { name: 'a JSON array line → 3303', text: () => '[1,2]', code: 'INFERENCE_3303', status: 400, line: 1 },
    { name: 'an empty file → 3303', text: () => '\n\n', code: 'INFERENCE_3303', status: 400, line: null },
    { name: 'more rows than batches.max_requests_per_file → 3305', text: () => chatLines(6), code: 'INFERENCE_3305', status: 400, line: 6 },
  ])('$name', async ({ text, code, status, line }) => {
    const response = await create({ input_file_id: await uploadBatchFile(client, text()), endpoint: '/v1/chat/completions' });
    expect(response.status).toBe(status);
    expect(response.json.error.code).toBe(code);
    if (line !== undefined) expect(response.json.error.details.line).toBe(line);
  });

  it('blank lines and CRLF endings are accepted', async () => {
    const response = await create({ input_file_id: await uploadBatchFile(client, `\r\n${chatLine('a', 'x')}\r\n\r\n${chatLine('b', 'y')}\r\n`), endpoint: '/v1/chat/completions' });
    expect(response.status).toBe(200);
    expect(response.json.request_counts.processing).toBe(2);
  });

  it('unsupported endpoint → VALIDATION_4007', async () => {
    const response = await create({ input_file_id: await uploadBatchFile(client, chatLines(1)), endpoint: '/v1/rerank' });
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code: 'VALIDATION_4007', details: { field: 'endpoint' } });
  });

  it('missing file → INFERENCE_3302; a file of another account → INFERENCE_3302', async () => {
    expect((await create({ input_file_id: 'file-missing', endpoint: '/v1/chat/completions' })).json.error.code).toBe('INFERENCE_3302');
    await createAccount(gw.gateway.app.store, gw.config, 'foreign-file');
    const foreign = await uploadBatchFile(gw.openai(await gw.newKey({ account: 'foreign-file' })), chatLines(1));
    const response = await create({ input_file_id: foreign, endpoint: '/v1/chat/completions' });
    expect(response.status).toBe(404);
    expect(response.json.error.code).toBe('INFERENCE_3302');
  });

  it('a file that is not purpose batch → INFERENCE_3303', async () => {
    const response = await create({ input_file_id: await uploadBatchFile(client, chatLines(1), 'x.jsonl', 'user_data'), endpoint: '/v1/chat/completions' });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INFERENCE_3303');
  });

  it('a file over 105 MB → INFERENCE_3304 (413)', async () => {
    const big = Buffer.alloc(105 * 1024 * 1024 + 1, 0x20);
    const response = await create({ input_file_id: await uploadBatchFile(client, big, 'big.jsonl'), endpoint: '/v1/chat/completions' });
    expect(response.status).toBe(413);
    expect(response.json.error.code).toBe('INFERENCE_3304');
  }, 60_000);

  it.each([
    { name: 'missing input_file_id', body: { endpoint: '/v1/chat/completions' }, code: 'VALIDATION_4002', field: 'input_file_id' },
    { name: 'missing endpoint', body: { input_file_id: 'file-x' }, code: 'VALIDATION_4002', field: 'endpoint' },
    { name: '17 metadata pairs', body: { input_file_id: 'file-x', endpoint: '/v1/chat/completions', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v'])) }, code: 'VALIDATION_4005', field: 'metadata' },
    { name: 'a non-string metadata value', body: { input_file_id: 'file-x', endpoint: '/v1/chat/completions', metadata: { a: 1 } }, code: 'VALIDATION_4005', field: 'metadata.a' },
    { name: 'a bad completion_window', body: { input_file_id: 'file-x', endpoint: '/v1/chat/completions', completion_window: 'tomorrow' }, code: 'VALIDATION_4005', field: 'completion_window' },
    { name: 'an unknown field', body: { input_file_id: 'file-x', endpoint: '/v1/chat/completions', priority: 1 }, code: 'VALIDATION_4005', field: 'priority' },
  ])('$name → $code', async ({ body, code, field }) => {
    const response = await create(body);
    expect(response.status).toBe(400);
    expect(response.json.error).toMatchObject({ code, details: { field } });
  });

  it('16 metadata pairs are fine', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 16 }, (_, index) => [`k${index}`, 'v']));
    const response = await create({ input_file_id: await uploadBatchFile(client, chatLines(1)), endpoint: '/v1/chat/completions', metadata });
    expect(response.status).toBe(200);
    expect(Object.keys(response.json.metadata)).toHaveLength(16);
  });

  it("create needs the target endpoint's scope; list/get/cancel any inference scope", async () => {
    const file = await uploadBatchFile(client, chatLines(1));
    const embedOnly = await gw.newKey({ scopes: ['inference.embeddings'] });
    const refused = await create({ input_file_id: file, endpoint: '/v1/chat/completions' }, embedOnly);
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: 'AUTH_1015', details: { required_scope: 'inference.chat' } });
    const chatKey = await gw.newKey({ scopes: ['inference.chat'] });
    const created = await create({ input_file_id: file, endpoint: '/v1/chat/completions' }, chatKey);
    expect(created.status).toBe(200);
    const models = gw.openai(await gw.newKey({ scopes: ['inference.models'] }));
    expect((await models.batches.retrieve(created.json.id)).id).toBe(created.json.id);
    await expect(models.batches.list()).resolves.toBeDefined();
    const kitOnly = gw.openai(await gw.newKey({ scopes: ['kit.tools'] }));
    expect(await sdkError(kitOnly.batches.list())).toMatchObject({ status: 403, code: 'AUTH_1015' });
  });

  it('list limit over 100 → VALIDATION_4005', async () => {
    const response = await fetch(`${gw.url}/v1/batches?limit=101`, { headers: { authorization: `Bearer ${gw.key}` } });
    expect(response.status).toBe(400);
  });
});
