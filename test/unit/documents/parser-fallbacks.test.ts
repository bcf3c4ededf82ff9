import { describe, expect, it } from 'vitest';
import { extractDocument, isDocumentError } from '../../../src/documents/extract.js';
import { readDocument } from './fixtures.js';

describe('documents the parsers do not expect', () => {
  // Readability's own expected.html files: article fragments that start with a <div>, no <html> or <body>.
  it.each([
    ['html/v8-blog/expected.html', 'Emscripten has always focused first and foremost'],
    ['html/ietf-1/expected.html', 'remoteStorage'],
    ['html/mozilla-2/expected.html', 'the most complete browser for building the Web'],
  ])('%s gives its text', async (file, phrase) => {
    const document = await extractDocument({ bytes: readDocument(file), filename: 'expected.html' });
    expect(document.format).toBe('html');
    expect(document.text.replace(/\s+/g, ' ')).toContain(phrase);
  });

  it('a page that is all navigation and footer still gives its text', async () => {
    const html = '<!doctype html><html><body><nav>Pricing plans for teams</nav><footer>Contact sales today</footer></body></html>';
    const document = await extractDocument({ bytes: Buffer.from(html), filename: 'page.html' });
    expect(document.text).toContain('Pricing plans for teams');
  });

  it('a file a parser throws on is a clean per-file error, never an exception that escapes', async () => {
    // Valid JSON nested deeper than the flattening walk's stack: the parser throws a RangeError.
    const deep = Buffer.from(`${'['.repeat(200_000)}1${']'.repeat(200_000)}`);
    const error = await extractDocument({ bytes: deep, filename: 'deep.json' }).catch((caught: unknown) => caught);
    expect(isDocumentError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_file' });
    expect((error as Error).message).toContain('deep.json');
  });
});
