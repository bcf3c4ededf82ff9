import { parseHTML } from 'linkedom';
import { DocumentError } from './document-error.js';
import { htmlToText, type TextNode } from './html-text.js';
import type { DocumentInput, ExtractedDocument } from './types.js';

/**
 * DOCX → text through mammoth's HTML (not its raw text): the HTML keeps list items, table rows
 * and cells, and headings apart, and html-text.ts writes them readably (`- item`, `a | b`);
 * raw text runs table cells and list items together. Footnotes and endnotes come at the end,
 * as mammoth places them. Images are dropped (no inline base64 in the text).
 */
export async function extractDocx(input: DocumentInput): Promise<ExtractedDocument> {
  const mammoth = (await import('mammoth')).default;
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: input.bytes },
      { convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })) },
    );
    html = result.value;
  } catch (error) {
    throw new DocumentError('invalid_file', `"${input.filename}" is not a readable Word document (${(error as Error).message}); it may be damaged or password-protected.`, { cause: error });
  }
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  // The "↑" links from a footnote back to its reference are navigation, not text.
  for (const link of document.querySelectorAll('a[href^="#footnote-ref-"], a[href^="#endnote-ref-"], a[href^="#comment-ref-"]')) link.remove();
  const text = htmlToText(document.body as unknown as TextNode);
  const heading = document.querySelector('h1')?.textContent?.trim();
  return heading === undefined || heading === '' ? { text, format: 'docx' } : { text, format: 'docx', title: heading };
}
