import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONVERT_MAX_BYTES } from '../../src/documents/convert/limits.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { documentsRoot } from '../unit/documents/fixtures.js';

const sample = (relPath: string) => readFileSync(path.join(documentsRoot, relPath));

let gw: TestGateway;
let key: string;
let site: FakeUpstream;

beforeAll(async () => {
  gw = await startTestGateway({ server: { allow_private_urls: true } });
  key = await gw.newKey({ name: 'kit', scopes: ['kit.documents', 'inference.chat'] });
  site = await startFakeUpstream((request) => {
    if (request.path === '/article.html') return { status: 200, text: sample('html/v8-blog/source.html').toString('utf8'), headers: { 'content-type': 'text/html; charset=utf-8' } };
    return { status: 404, text: 'not here' };
  });
});

afterAll(async () => {
  await site?.close();
  await gw?.close();
});

async function convertUpload(bytes: Buffer, filename: string, fields: Record<string, string> = {}, apiKey = key): Promise<{ status: number; json: any }> {
  const form = new FormData();
  form.set('file', new Blob([bytes]), filename);
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  const response = await fetch(`${gw.url}/v1/documents/convert`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form });
  return { status: response.status, json: await response.json() };
}

describe('POST /v1/documents/convert', () => {
  it('a DOCX upload becomes Markdown with its table and list structure', async () => {
    const { status, json } = await convertUpload(sample('docx/tables.docx'), 'tables.docx');
    expect(status).toBe(200);
    expect(json).toMatchObject({ object: 'document', filename: 'tables.docx', type: 'docx', format: 'markdown' });
    expect(json.text).toContain('| Top left | Top right |');
    expect(json.text).toMatch(/\| --- \| --- \|/);
    expect(json.pages).toEqual([{ index: 0, text: json.text }]);
    expect(json.metadata.pages).toBe(1);
    expect(json.metadata.characters).toBe(json.text.length);
    expect(json.metadata.tokens).toBeGreaterThan(5);
  });

  it('a PDF answers page by page, each page its own text', async () => {
    const { status, json } = await convertUpload(sample('pdf/federal-register-2020-17221.pdf'), 'register.pdf');
    expect(status).toBe(200);
    expect(json.type).toBe('pdf');
    expect(json.metadata.pages).toBe(15);
    expect(json.pages.map((page: { index: number }) => page.index)).toEqual([...Array(15).keys()]);
    expect(json.pages[0].text).toContain('FEDERAL REGISTER');
    expect(json.pages[1].text).toContain('47699');
    expect(json.pages[1].text).not.toContain('47698\n');
  });

  it('format=text gives the indexing text (table cells as "a | b", no Markdown table rule)', async () => {
    const { status, json } = await convertUpload(sample('docx/tables.docx'), 'tables.docx', { format: 'text' });
    expect(status).toBe(200);
    expect(json.format).toBe('text');
    expect(json.text).toContain('Top left | Top right');
    expect(json.text).not.toContain('---');
  });

  it('HTML articles keep headings as ATX Markdown and the page title as metadata', async () => {
    const { json } = await convertUpload(sample('html/v8-blog/source.html'), 'source.html');
    expect(json.type).toBe('html');
    expect(json.metadata.title).toContain('WebAssembly');
    expect(json.text).toMatch(/^## /m);
    expect(json.text).not.toContain('<div');
  });

  it('an HTML fragment without <html>/<body> converts (readability expected.html files)', async () => {
    const { status, json } = await convertUpload(sample('html/mozilla-2/expected.html'), 'expected.html');
    expect(status).toBe(200);
    expect(json.text).toContain('WebIDE');
  });

  it('CSV becomes a Markdown table', async () => {
    const { json } = await convertUpload(sample('csv/sample-small.csv'), 'sample.csv');
    expect(json.text.split('\n').slice(0, 3)).toEqual(['| month | revenue | expenses | profit |', '| --- | --- | --- | --- |', '| January | 12500 | 8200 | 4300 |']);
  });

  it('{file_id}: a file uploaded through the Files API', async () => {
    const file = await gw.openai(key).files.create({ file: new File([sample('markdown/vercel-ai-README.md')], 'README.md'), purpose: 'user_data' });
    const { status, json } = await postJson(`${gw.url}/v1/documents/convert`, key, { file_id: file.id });
    expect(status).toBe(200);
    expect(json.type).toBe('markdown');
    expect(json.filename).toBe('README.md');
    expect(json.text).toContain('```');
  });

  it('{url}: fetched through the SSRF guard (allowed here by server.allow_private_urls)', async () => {
    const { status, json } = await postJson(`${gw.url}/v1/documents/convert`, key, { url: new URL(site.url).origin + "/article.html", format: 'text' });
    expect(json.error).toBeUndefined();
    expect(status).toBe(200);
    expect(json.type).toBe('html');
    expect(json.text).toContain('Emscripten');
  });

  it('a URL that answers 404 is a clear 4xx naming the url', async () => {
    const { status, json } = await postJson(`${gw.url}/v1/documents/convert`, key, { url: new URL(site.url).origin + "/missing.html" });
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    expect(json.error.details.field).toBe('url');
  });

  it.each([
    ['an image', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]), 'photo.png', 'unsupported_file'],
    ['a damaged PDF', Buffer.from('%PDF-1.7\nnot really a pdf at all'), 'broken.pdf', 'invalid_file'],
    ['a file with no text', Buffer.from('   \n\n  '), 'blank.txt', 'invalid_file'],
    ['a DOCX that is not a zip', Buffer.from('plain words'), 'letter.docx', 'invalid_file'],
  ])('%s is a 400 that says why, never a 500', async (_label, bytes, filename, reason) => {
    const { status, json } = await convertUpload(bytes, filename);
    expect(status).toBe(400);
    expect(json.error.code).toBe('VALIDATION_4005');
    expect(json.error.details).toMatchObject({ field: 'file', reason });
    expect(json.error.message).toContain(filename);
  });

  it.each([
    [{}, 'body'],
    [{ file_id: 'file-1', url: 'https://example.com' }, 'body'],
    [{ file_id: 'file-1', format: 'html' }, 'format'],
    [{ url: 'ftp://example.com/x.pdf' }, 'url'],
    [{ url: 'https://example.com', colour: 'blue' }, 'colour'],
  ])('bad JSON body %j → 400 naming %s', async (body, field) => {
    const { status, json } = await postJson(`${gw.url}/v1/documents/convert`, key, body);
    expect(status).toBe(400);
    expect(json.error.details.field).toBe(field);
  });

  it('an unknown file_id is 404 RESOURCE_5410', async () => {
    const { status, json } = await postJson(`${gw.url}/v1/documents/convert`, key, { file_id: 'file-nope' });
    expect(status).toBe(404);
    expect(json.error.code).toBe('RESOURCE_5410');
  });

  it('multipart without a file, or with an unknown field, is a 400', async () => {
    const form = new FormData();
    form.set('format', 'text');
    const response = await fetch(`${gw.url}/v1/documents/convert`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.code).toBe('VALIDATION_4002');
    const extra = await convertUpload(Buffer.from('hello'), 'a.txt', { pages: 'all' });
    expect(extra.status).toBe(400);
    expect(extra.json.error.details.field).toBe('pages');
  });

  it(`a document over ${CONVERT_MAX_BYTES / 1024 / 1024} MB is refused with 413`, async () => {
    const { status, json } = await convertUpload(Buffer.alloc(CONVERT_MAX_BYTES + 1, 'a'), 'huge.txt');
    expect(status).toBe(413);
    expect(json.error.code).toBe('VALIDATION_4013');
  });

  it('needs the kit.documents scope', async () => {
    const chatOnly = await gw.newKey({ name: 'chat', scopes: ['inference.chat'] });
    const { status, json } = await convertUpload(Buffer.from('hello'), 'a.txt', {}, chatOnly);
    expect(status).toBe(403);
    expect(json.error.code).toBe('AUTH_1015');
    expect(json.error.details.required_scope).toBe('kit.documents');
  });
});
