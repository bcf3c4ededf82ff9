import { isProbablyReaderable, Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { charsetOf, decodeText } from './decode-text.js';
import { htmlToText, type TextNode } from './html-text.js';
import type { DocumentInput, ExtractedDocument } from './types.js';

/**
 * HTML → text. A page that reads as an article (Readability's `isProbablyReaderable`) gives
 * its article: Mozilla Readability (Firefox Reader View's algorithm) drops navigation, ads and
 * boilerplate, and its result is written as text by html-text.ts. Other pages (landing pages,
 * indexes), pages Readability rejects or trips over, and fragments (a saved `<div>…</div>`
 * without `<html>` or `<body>`) give the text of the whole body without scripts, styles,
 * navigation and footers; if even that is empty, the text of every element. linkedom is the DOM:
 * small and fast, no layout, no script execution.
 */
export function extractHtml(input: DocumentInput): ExtractedDocument {
  const { text, title } = readHtml(input, htmlToText);
  return title === '' ? { text, format: 'html' } : { text, format: 'html', title };
}

/** Writes the chosen part of a page: as indexing text (html-text.ts) or as Markdown (convert/). */
export type HtmlSerializer = (node: TextNode) => string;

/** The page's content (article, else body, else everything; see extractHtml) through `serialize`, and its title. */
export function readHtml(input: DocumentInput, serialize: HtmlSerializer): { text: string; title: string } {
  const html = asDocument(decodeHtml(input));
  const { document } = parseHTML(html);
  const pageTitle = (document.title ?? '').trim();
  const article = readArticle(document, serialize);
  if (article !== null) return { text: article.text, title: article.title || pageTitle };
  // Readability changes the DOM it reads, so the fallback parses the page again.
  const { document: page } = parseHTML(html);
  let text = '';
  const body = (page.body ?? page.documentElement) as unknown as TextNode | null;
  for (const element of page.querySelectorAll('nav, footer, script, style, noscript, template, [aria-hidden="true"]')) element.remove();
  if (body !== null) text = serialize(body);
  if (text.trim() === '') {
    // Everything was navigation or footer (or hidden): the text is still better than nothing.
    const whole = parseHTML(html).document.documentElement as unknown as TextNode | null;
    if (whole !== null) text = serialize(whole);
  }
  return { text, title: pageTitle };
}

/** Readability's article, or null when the page is not an article or Readability fails on it. */
function readArticle(document: ReturnType<typeof parseHTML>['document'], serialize: HtmlSerializer): { text: string; title: string } | null {
  const dom = document as unknown as Parameters<typeof isProbablyReaderable>[0];
  try {
    if (!isProbablyReaderable(dom)) return null;
    const article = new Readability(dom, { serializer: (node) => serialize(node as unknown as TextNode) }).parse();
    const text = article?.content ?? '';
    return text.trim() === '' ? null : { text, title: article?.title?.trim() ?? '' };
  } catch {
    // A DOM shape Readability does not expect (e.g. `TypeError: … reading 'tagName'`): not the
    // file's fault, the whole-body text below still reads it.
    return null;
  }
}

/**
 * A fragment (no `<html>` or `<body>` tag: readability's own expected.html files, a saved
 * `<div>`) gets a document around it; linkedom would otherwise make its first element the root.
 */
function asDocument(html: string): string {
  return /<(html|body)[\s>]/i.test(html.slice(0, 4096)) ? html : `<!DOCTYPE html><html><head></head><body>${html}</body></html>`;
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
