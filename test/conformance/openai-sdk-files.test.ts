import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/admin/accounts-admin.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { storedFileBytes, storedFileIds } from '../helpers/stored-files.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

const jsonl = '{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"local-echo","messages":[{"role":"user","content":"secret words"}]}}\n';

async function accountKey(account: string): Promise<string> {
  await createAccount(gw.gateway.app.store, gw.config, account);
  return gw.newKey({ account });
}

async function sdkError(run: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await run;
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error;
    throw error;
  }
  throw new Error('expected an API error');
}

describe('official openai SDK: files', () => {
  it('create → retrieve → content → list → delete', async () => {
    const client = gw.openai();
    const created = await client.files.create({ file: await toFile(Buffer.from(jsonl), 'input.jsonl'), purpose: 'batch' });
    expect(created).toMatchObject({ object: 'file', bytes: Buffer.byteLength(jsonl), filename: 'input.jsonl', purpose: 'batch' });
    expect(created.id).toMatch(/^file-/);
    expect(typeof created.created_at).toBe('number');

    expect(await client.files.retrieve(created.id)).toMatchObject({ id: created.id, bytes: created.bytes, purpose: 'batch' });
    const content = await client.files.content(created.id);
    expect(await content.text()).toBe(jsonl);

    const listed = await client.files.list();
    expect(listed.data.map((file) => file.id)).toContain(created.id);

    expect(await client.files.delete(created.id)).toMatchObject({ id: created.id, object: 'file', deleted: true });
    expect((await sdkError(client.files.retrieve(created.id))).status).toBe(404);
  });

  it('stores the bytes encrypted: nothing of the plaintext on disk (or in the database)', async () => {
    const created = await gw.openai().files.create({ file: await toFile(Buffer.from(jsonl), 'input.jsonl'), purpose: 'user_data' });
    const blob = await storedFileBytes(gw, created.id);
    expect(blob.includes(Buffer.from('secret words'))).toBe(false);
    expect(blob.length).toBeGreaterThan(Buffer.byteLength(jsonl));
    expect(await readdir(path.join(gw.dataDir, 'tmp'))).toEqual([]);
  });

  it('uploads over 256 KB (streamed through a temp file) work again after the tmp folder was removed under the running server', async () => {
    const client = gw.openai();
    const large = randomBytes(300 * 1024);
    await client.files.create({ file: await toFile(large, 'first.bin'), purpose: 'assistants' });
    await rm(path.join(gw.dataDir, 'tmp'), { recursive: true, force: true });
    // The first upload after the removal may fail (the folder is known to exist until a write says otherwise).
    await client.files.create({ file: await toFile(large, 'lost.bin'), purpose: 'assistants' }).catch(() => undefined);
    const created = await client.files.create({ file: await toFile(large, 'again.bin'), purpose: 'assistants' });
    expect(Buffer.from(await (await client.files.content(created.id)).arrayBuffer()).equals(large)).toBe(true);
    expect(await readdir(path.join(gw.dataDir, 'tmp'))).toEqual([]);
  });

  it('small and large uploads round-trip byte for byte around the 256 KB in-memory bound, sealed on disk', async () => {
    const client = gw.openai();
    for (const size of [0, 1, 255 * 1024, 256 * 1024, 257 * 1024]) {
      const bytes = randomBytes(size);
      const created = await client.files.create({ file: await toFile(bytes, `f${size}.bin`), purpose: 'assistants' });
      expect(created.bytes).toBe(size);
      expect(Buffer.from(await (await client.files.content(created.id)).arrayBuffer()).equals(bytes)).toBe(true);
      const blob = await storedFileBytes(gw, created.id);
      expect(blob.length).toBeGreaterThan(size);
      if (size > 16) expect(blob.includes(bytes.subarray(0, 16))).toBe(false);
    }
  });

  it('round-trips a 3 MB binary file byte for byte', async () => {
    const data = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let index = 0; index < data.length; index += 1) data[index] = (index * 31) & 255;
    const created = await gw.openai().files.create({ file: await toFile(data, 'blob.bin'), purpose: 'assistants' });
    expect(created.bytes).toBe(data.length);
    const content = Buffer.from(await (await gw.openai().files.content(created.id)).arrayBuffer());
    expect(content.equals(data)).toBe(true);
  });

  it('lists newest first with purpose filter, limit, after and has_more', async () => {
    const key = await accountKey('lister');
    const client = gw.openai(key);
    const ids: string[] = [];
    for (const [index, purpose] of (['batch', 'user_data', 'batch'] as const).entries()) {
      ids.push((await client.files.create({ file: await toFile(Buffer.from(`f${index}`), `f${index}.txt`), purpose })).id);
    }
    const page = await fetch(`${gw.url}/v1/files?limit=2`, { headers: { authorization: `Bearer ${key}` } }).then((response) => response.json() as Promise<any>);
    expect(page).toMatchObject({ object: 'list', first_id: ids[2], last_id: ids[1], has_more: true });
    const rest = await fetch(`${gw.url}/v1/files?limit=2&after=${ids[1]}`, { headers: { authorization: `Bearer ${key}` } }).then((response) => response.json() as Promise<any>);
    expect(rest).toMatchObject({ data: [{ id: ids[0] }], has_more: false });
    const batches = await client.files.list({ purpose: 'batch' });
    expect(batches.data.map((file) => file.id)).toEqual([ids[2], ids[0]]);
    const ascending = await fetch(`${gw.url}/v1/files?order=asc`, { headers: { authorization: `Bearer ${key}` } }).then((response) => response.json() as Promise<any>);
    expect(ascending.data.map((file: { id: string }) => file.id)).toEqual(ids);
  });

  it("another account's file is not found, for every operation", async () => {
    const mine = await gw.openai().files.create({ file: await toFile(Buffer.from('mine'), 'mine.txt'), purpose: 'user_data' });
    const other = gw.openai(await accountKey('someone-else'));
    for (const run of [other.files.retrieve(mine.id), other.files.content(mine.id), other.files.delete(mine.id)]) {
      const error = await sdkError(run);
      expect(error.status).toBe(404);
      expect((error.error as { code: string }).code).toBe('RESOURCE_5410');
    }
    expect((await other.files.list()).data.map((file) => file.id)).not.toContain(mine.id);
    expect(await gw.openai().files.retrieve(mine.id)).toMatchObject({ id: mine.id });
  });

  it.each([
    { name: 'missing purpose', form: () => withFile(new FormData()), code: 'VALIDATION_4002', field: 'purpose' },
    { name: 'unknown purpose', form: () => withFile(withPurpose(new FormData(), 'fine-tune')), code: 'VALIDATION_4005', field: 'purpose' },
    { name: 'batch_output is not for uploads', form: () => withFile(withPurpose(new FormData(), 'batch_output')), code: 'VALIDATION_4005', field: 'purpose' },
    { name: 'missing file', form: () => withPurpose(new FormData(), 'batch'), code: 'VALIDATION_4002', field: 'file' },
    { name: 'unknown field', form: () => { const form = withFile(withPurpose(new FormData(), 'batch')); form.append('colour', 'blue'); return form; }, code: 'VALIDATION_4005', field: 'colour' },
  ])('refuses $name', async ({ form, code, field }) => {
    const response = await fetch(`${gw.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}` }, body: form() });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error).toMatchObject({ code, details: { field } });
    expect(await readdir(path.join(gw.dataDir, 'tmp'))).toEqual([]);
  });

  it('scopes: any inference scope uploads; a knowledge-write key uploads assistants files only; others get AUTH_1015', async () => {
    const chat = gw.openai(await gw.newKey({ scopes: ['inference.chat'] }));
    await expect(chat.files.create({ file: await toFile(Buffer.from('x'), 'x.txt'), purpose: 'batch' })).resolves.toMatchObject({ purpose: 'batch' });
    const knowledge = gw.openai(await gw.newKey({ scopes: ['kit.knowledge.write'] }));
    await expect(knowledge.files.create({ file: await toFile(Buffer.from('x'), 'x.md'), purpose: 'assistants' })).resolves.toMatchObject({ purpose: 'assistants' });
    const refused = await sdkError(knowledge.files.create({ file: await toFile(Buffer.from('x'), 'x.txt'), purpose: 'batch' }));
    expect(refused.status).toBe(403);
    const reader = gw.openai(await gw.newKey({ scopes: ['kit.knowledge.read'] }));
    await expect(reader.files.list()).resolves.toBeDefined();
    expect((await sdkError(reader.files.create({ file: await toFile(Buffer.from('x'), 'x.md'), purpose: 'assistants' }))).status).toBe(403);
    const tools = gw.openai(await gw.newKey({ scopes: ['kit.tools'] }));
    expect((await sdkError(tools.files.list())).status).toBe(403);
  });
});

describe('upload size limit (config files.max_upload_bytes)', () => {
  it('refuses an over-size upload with 413 VALIDATION_4013 while streaming, leaving nothing on disk', async () => {
    const small = await startTestGateway({ files: { max_upload_bytes: 1000 } });
    try {
      const error = await sdkError(small.openai().files.create({ file: await toFile(Buffer.alloc(200_000, 0x61), 'big.txt'), purpose: 'user_data' }));
      expect(error.status).toBe(413);
      expect((error.error as { code: string }).code).toBe('VALIDATION_4013');
      expect(await readdir(path.join(small.dataDir, 'tmp'))).toEqual([]);
      expect(await storedFileIds(small)).toEqual([]);
      await expect(small.openai().files.create({ file: await toFile(Buffer.alloc(1000, 0x61), 'fits.txt'), purpose: 'user_data' })).resolves.toMatchObject({ bytes: 1000 });
    } finally {
      await small.close();
    }
  });
});

function withPurpose(form: FormData, purpose: string): FormData {
  form.append('purpose', purpose);
  return form;
}
function withFile(form: FormData): FormData {
  form.append('file', new Blob(['hello']), 'hello.txt');
  return form;
}
