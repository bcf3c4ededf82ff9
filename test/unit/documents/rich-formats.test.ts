import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { DocumentError, extractDocument } from '../../../src/documents/extract.js';
import { htmlToText, type TextNode } from '../../../src/documents/html-text.js';
import { documentsRoot, readDocument } from './fixtures.js';

/** Whitespace-insensitive form for comparing texts laid out differently. */
const words = (text: string): string => text.replace(/\s+/g, ' ').trim();
/** Non-empty lines with their inner whitespace collapsed. */
const lines = (text: string): string[] => text.split('\n').map((line) => line.replace(/\s+/g, ' ').trim()).filter((line) => line !== '');

function textOfHtml(html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  return htmlToText(document.body as unknown as TextNode);
}

describe('htmlToText', () => {
  it.each<[string, string, string]>([
    ['paragraphs and inline whitespace', '<p>one\n   two</p><p>three <b>four</b></p>', 'one two\n\nthree four'],
    ['line breaks', '<p>a<br>b</p>', 'a\nb'],
    ['nested and ordered lists', '<ul><li>a<ul><li>b</li></ul></li><li><p>c</p><p>d</p></li></ul><ol start="3"><li>x</li><li>y</li></ol>', '- a\n  - b\n- c\n  d\n\n3. x\n4. y'],
    ['tables as rows of cells', '<table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td><p>2</p></td></tr><tr><td></td><td>3</td></tr></table>', 'k | v\n1 | 2\n3'],
    ['preformatted text kept', '<p>code:</p><pre>  a = 1\n    b = 2</pre>', 'code:\n\n  a = 1\n    b = 2'],
    ['scripts, styles and hidden elements skipped', '<p>x</p><script>var a</script><style>p{}</style><div hidden>secret</div><img alt="pic">', 'x'],
    ['headings as paragraphs', '<h1>Title</h1>text<h2>Sub</h2>more', 'Title\n\ntext\n\nSub\n\nmore'],
  ])('%s', (_name, html, expected) => {
    expect(textOfHtml(html)).toBe(expected);
  });
});

describe('extractDocument: HTML', () => {
  it('takes the article of an article page and its title', async () => {
    const paragraph = 'Vector stores keep document chunks with their embeddings so a model can retrieve them later. '.repeat(6);
    const html = `<!doctype html><html><head><title>Page title</title></head><body>
      <nav><a href="/">Home</a> <a href="/about">About</a></nav>
      <article><h1>Knowledge bases</h1><p>${paragraph}</p><p>${paragraph}</p><p>${paragraph}</p></article>
      <footer>Copyright footer text</footer></body></html>`;
    const document = await extractDocument({ bytes: Buffer.from(html), filename: 'page.html' });
    expect(document.format).toBe('html');
    expect(document.text).toContain('Vector stores keep document chunks');
    expect(document.text).not.toContain('Copyright footer text');
    expect(document.text).not.toContain('About');
  });

  it('gives the whole body (without navigation) for a page that is not an article', async () => {
    const html = '<html><head><title>Tiny</title></head><body><nav>Menu</nav><h1>Hello</h1><p>Short note.</p><script>x()</script></body></html>';
    expect(await extractDocument({ bytes: Buffer.from(html), filename: 'tiny.html' })).toEqual({ text: 'Hello\n\nShort note.', format: 'html', title: 'Tiny' });
  });

  it('prefers the Content-Type charset to the page’s own declaration', async () => {
    const html = Buffer.concat([Buffer.from('<html><head><meta charset="utf-8"></head><body><p>'), Buffer.from([0xb1, 0xe6]), Buffer.from('</p></body></html>')]);
    expect((await extractDocument({ bytes: html, filename: 'pl.html', mimeType: 'text/html; charset=iso-8859-2' })).text).toBe('ąć');
  });

  it('honours a declared legacy charset', async () => {
    const html = Buffer.concat([Buffer.from('<html><head><meta charset="iso-8859-2"></head><body><p>'), Buffer.from([0xb1, 0xe6]), Buffer.from('</p></body></html>')]);
    expect((await extractDocument({ bytes: html, filename: 'pl.html' })).text).toBe('ąć');
  });
});

describe('extractDocument: damaged PDF and DOCX', () => {
  it.each<[string, Buffer, string, RegExp]>([
    ['a truncated PDF', Buffer.from('%PDF-1.7\n1 0 obj\n<<'), 'cut.pdf', /not a readable PDF/],
    ['a DOCX zip without a readable body', Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('word/document.xml garbage')]), 'bad.docx', /not a readable Word document/],
  ])('refuses %s as invalid_file', async (_name, bytes, filename, message) => {
    const error = await extractDocument({ bytes, filename }).then(() => undefined, (reason: unknown) => reason);
    expect(error).toBeInstanceOf(DocumentError);
    expect((error as DocumentError).code).toBe('invalid_file');
    expect((error as DocumentError).message).toMatch(message);
  });
});

describe('sample documents: HTML, PDF, DOCX', () => {

  describe.each(['v8-blog', 'ietf-1'])('readability sample %s', (name) => {
    it('extracts the text of readability’s expected article and its title', async () => {
      const document = await extractDocument({ bytes: readDocument(`html/${name}/source.html`), filename: `${name}.html`, mimeType: 'text/html' });
      const expectedHtml = readFileSync(path.join(documentsRoot, `html/${name}/expected.html`), 'utf8');
      const metadata = JSON.parse(readFileSync(path.join(documentsRoot, `html/${name}/expected-metadata.json`), 'utf8')) as { title: string };
      expect(document.format).toBe('html');
      expect(words(document.text)).toBe(words(textOfHtml(expectedHtml)));
      expect(document.title).toBe(metadata.title);
    });
  });

  it('mozilla-2 (not an article): the whole page text, which holds readability’s extract and the page title', async () => {
    const document = await extractDocument({ bytes: readDocument('html/mozilla-2/source.html'), filename: 'mozilla-2.html' });
    const metadata = JSON.parse(readFileSync(path.join(documentsRoot, 'html/mozilla-2/expected-metadata.json'), 'utf8')) as { title: string };
    expect(document.title).toBe(metadata.title);
    const expected = textOfHtml(readFileSync(path.join(documentsRoot, 'html/mozilla-2/expected.html'), 'utf8'));
    for (const line of lines(expected)) expect(words(document.text)).toContain(line);
    expect(document.text).not.toMatch(/<script|function\s*\(/);
  });

  it('scotus transcript: the same lines as pdfplumber’s layout text, line numbers in place', async () => {
    const document = await extractDocument({ bytes: readDocument('pdf/scotus-transcript-p1.pdf'), filename: 'scotus.pdf' });
    const expected = readFileSync(path.join(documentsRoot, 'pdf/scotus-transcript-p1.expected-layout.txt'), 'utf8');
    expect(document.format).toBe('pdf');
    expect(lines(document.text)).toEqual(lines(expected));
    // The metadata title is a leftover file name ("10811.exe"): not reported.
    expect(document.title).toBeUndefined();
  });

  it('vercel-ai.pdf: heading and list in reading order', async () => {
    const document = await extractDocument({ bytes: readDocument('pdf/vercel-ai.pdf'), filename: 'ai.pdf' });
    const text = words(document.text);
    expect(text.startsWith('AI Generative artificial intelligence refers to models')).toBe(true);
    const order = ['Given a photo, a generative model can generate a caption.', 'Given an audio file', 'Given a text description', 'A large language model'];
    const positions = order.map((phrase) => text.indexOf(phrase));
    expect(positions.every((position) => position > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('nics table: one line per state with its numbers', async () => {
    const document = await extractDocument({ bytes: readDocument('pdf/nics-background-checks-2015-11.pdf'), filename: 'nics.pdf' });
    const rows = lines(document.text);
    expect(rows).toContain('Alabama 18,870 23,022 22,650 859 1,178 0 14 15 0 2,179 2,307 11 0 0 0 13 14 0 3 2 0 71,137');
    expect(rows.some((row) => row.startsWith('Wyoming '))).toBe(true);
  });

  it('federal register: 15 pages in column order, running heads included', async () => {
    const document = await extractDocument({ bytes: readDocument('pdf/federal-register-2020-17221.pdf'), filename: 'fr.pdf' });
    const text = words(document.text);
    expect(text).toContain('SUMMARY: The FAA proposes to supersede Airworthiness Directive (AD) 2018–23–51, which applies to all The Boeing Company Model 737–8');
    // Column order: the end of the left column's sentence runs on into the next column's start.
    expect(text.indexOf('AGENCY: Federal Aviation Administration (FAA), DOT.')).toBeLessThan(text.indexOf('SUMMARY: The FAA proposes'));
    expect(document.text.split('\n\n').length).toBeGreaterThan(15);
  });

  it.each<[string, string]>([
    ['simple-list', '- Apple\n- Banana'],
    ['tables', 'Above\n\nTop left | Top right\nBottom left | Bottom right\n\nBelow'],
    ['footnotes', 'Ouch[1].[2]\n\n1. A tachyon walks into a bar.\n2. Fin.'],
  ])('DOCX %s keeps its structure readable', async (name, expected) => {
    const document = await extractDocument({ bytes: readDocument(`docx/${name}.docx`), filename: `${name}.docx` });
    expect(document).toEqual({ text: expected, format: 'docx' });
  });
});
