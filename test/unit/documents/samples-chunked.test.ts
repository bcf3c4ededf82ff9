import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunkText } from '../../../src/chunking/chunk-text.js';
import { chunkOptionsFor, resolveChunkingStrategy } from '../../../src/chunking/strategy.js';
import { extractDocument } from '../../../src/documents/extract.js';
import { documentsRoot, readDocument } from './fixtures.js';

/** Every sample document through extraction and `auto` chunking, as ingestion will run them. */
describe('sample documents: extract then chunk', () => {
  const samples = readdirSync(documentsRoot, { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.(pdf|docx|csv|json|md)$/.test(file) || file.endsWith('source.html'))
        .filter((file) => file !== 'manifest.json')
        .sort();

  it.each(samples)('%s', async (file) => {
    const document = await extractDocument({ bytes: readDocument(file), filename: path.basename(file) });
    const options = chunkOptionsFor(resolveChunkingStrategy({ type: 'auto' }));
    const chunks = chunkText(document.text, options);
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) {
      expect(chunk.text.trim()).not.toBe('');
      expect(chunk.tokens).toBeLessThanOrEqual(options.maxTokens);
    }
  });
});
