import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/recorded.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const documentsRoot = path.resolve(repoRoot, 'fixtures/documents');
const available = existsSync(documentsRoot);
if (!available) console.warn(`[vector-stores retrieval] skipped: fixture documents not found at ${documentsRoot}`);

const CORPUS = ['pdf/scotus-transcript-p1.pdf', 'pdf/federal-register-2020-17221.pdf', 'pdf/nics-background-checks-2015-11.pdf', 'markdown/vercel-ai-README.md', 'docx/footnotes.docx'];

/** Real documents (PDF, DOCX, Markdown) parsed, chunked, embedded with local-embed: each query finds its document first. */
describe.skipIf(!available)('vector store retrieval over real documents', () => {
  let gw: TestGateway;
  let client: ReturnType<TestGateway['openai']>;
  let storeId: string;
  const idOf = new Map<string, string>();

  beforeAll(async () => {
    gw = await startTestGateway();
    client = gw.openai(await gw.newKey({ name: 'kb', vault: true }));
    storeId = (await client.vectorStores.create({ name: 'corpus' })).id;
    const files = await Promise.all(CORPUS.map(async (file) => toFile(await readFile(path.join(documentsRoot, file)), path.basename(file))));
    const batch = await client.vectorStores.fileBatches.uploadAndPoll(storeId, { files }, { pollIntervalMs: 50 });
    expect(batch.file_counts).toMatchObject({ completed: CORPUS.length, failed: 0 });
    for (const file of (await client.vectorStores.files.list(storeId)).data) {
      idOf.set((await client.files.retrieve(file.id)).filename, file.id);
    }
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
  });

  it.each([
    ['Knowles warden Mirzayance argument before the Supreme Court', 'scotus-transcript-p1.pdf'],
    ['proposed rules published in the Federal Register', 'federal-register-2020-17221.pdf'],
    ['handgun and long gun permit checks in Alabama', 'nics-background-checks-2015-11.pdf'],
    ['provider-agnostic TypeScript toolkit for AI-powered applications', 'vercel-ai-README.md'],
    ['a tachyon walks into a bar', 'footnotes.docx'],
  ])('%j → %s', async (query, expected) => {
    const results = await client.vectorStores.search(storeId, { query, max_num_results: 5 });
    expect(results.data[0]?.filename).toBe(expected);
    expect(results.data[0]?.file_id).toBe(idOf.get(expected));
  });
});
