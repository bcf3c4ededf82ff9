import { isProbablyReaderable, Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { charsetOf, decodeText } from './decode-text.js';
import { htmlToText, type TextNode } from './html-text.js';
import type { DocumentInput, ExtractedDocument } from './types.js';

/**
 * HTML → text. A page that reads as an article (Readability's `isProbablyReaderable`) gives
 * its article: Mozilla Readability (Firefox Reader View's algorithm) drops navigation, ads and
 * boilerplate, and its result is written as text by html-text.ts. Other pages (landing pages,
 * indexes, fragments) give the text of the whole body without scripts, styles, navigation and
 * footers — Readability would keep only one block of them. linkedom is the DOM: small and fast,
 * no layout, no script execution.
 */
export function extractHtml(input: DocumentInput): ExtractedDocument {
  const html = decodeHtml(input);
  const { document } = parseHTML(html);
  const pageTitle = (document.title ?? '').trim();
  const dom = document as unknown as Parameters<typeof isProbablyReaderable>[0];

  if (isProbablyReaderable(dom)) {
    const article = new Readability(dom, { serializer: (node) => htmlToText(node as unknown as TextNode) }).parse();
    const text = article?.content ?? '';
    if (text.trim() !== '') {
      const title = article?.title?.trim() || pageTitle;
      return title === '' ? { text, format: 'html' } : { text, format: 'html', title };
    }
  }
  // Readability changes the DOM it reads, so the fallback parses the page again.
  const { document: page } = parseHTML(html);
  for (const element of page.querySelectorAll('nav, footer, script, style, noscript, template, [aria-hidden="true"]')) element.remove();
  const body = (page.body ?? page.documentElement) as unknown as TextNode | null;
  const text = body === null ? '' : htmlToText(body);
  return pageTitle === '' ? { text, format: 'html' } : { text, format: 'html', title: pageTitle };
}

/**
 * The page's text: a BOM, else the Content-Type's charset, else a `<meta charset>` (or
 * `http-equiv` content type) in the first bytes, else UTF-8 / Windows-1252 (decode-text.ts).
 */
function decodeHtml(input: DocumentInput): string {
  if (charsetOf(input.mimeType) !== undefined) return decodeText(input);
  const head = input.bytes.subarray(0, 2048).toString('latin1');
  const declared = /<meta[^>]+charset\s*=\s*["']?\s*([\w:.-]+)/i.exec(head)?.[1];
  return decodeText(input, declared);
}
