import { parseHTML } from 'linkedom';
import { DocumentError } from '../document-error.js';
import type { DocumentInput } from '../types.js';
import { markdownFromHtml } from './markdown-from-html.js';

/** DOCX → mammoth's semantic HTML (headings, lists, tables, footnotes) → Markdown. */
export async function docxToMarkdown(input: DocumentInput): Promise<{ title: string | undefined; pages: string[] }> {
  const mammoth = (await import('mammoth')).default;
  let html: string;
  try {
    const result = await mammoth.convertToHtml({ buffer: input.bytes }, { convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })) });
    html = result.value;
  } catch (error) {
    throw new DocumentError('invalid_file', `"${input.filename}" is not a readable Word document (${(error as Error).message}); it may be damaged or password-protected.`, { cause: error });
  }
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  // The "↑" links from a footnote back to its reference are navigation, not text.
  for (const link of document.querySelectorAll('a[href^="#footnote-ref-"], a[href^="#endnote-ref-"], a[href^="#comment-ref-"]')) link.remove();
  const title = document.querySelector('h1')?.textContent?.trim() || undefined;
  return { title, pages: [markdownFromHtml(document.body.innerHTML)] };
}
