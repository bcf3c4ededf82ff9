import { isProbablyReaderable, Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { charsetOf, decodeText } from '../decode-text.js';
import type { DocumentInput } from '../types.js';
import { markdownFromHtml } from './markdown-from-html.js';

/**
 * An HTML page → Markdown. An article page gives its article (Mozilla Readability, as for
 * indexing); any other page, and fragments without `<html>`/`<body>`, give the whole body less
 * navigation, footers and scripts.
 */
export function htmlPageToMarkdown(input: DocumentInput): { title: string | undefined; pages: string[] } {
  const html = asDocument(decodeHtml(input));
  const { document } = parseHTML(html);
  const pageTitle = (document.title ?? '').trim();
  const dom = document as unknown as Parameters<typeof isProbablyReaderable>[0];
  if (isProbablyReaderable(dom)) {
    const article = new Readability(dom).parse();
    const markdown = markdownFromHtml(article?.content ?? '');
    if (markdown !== '') return { title: article?.title?.trim() || pageTitle || undefined, pages: [markdown] };
  }
  // Readability changes the DOM it reads, so the fallback parses the page again.
  const { document: page } = parseHTML(html);
  for (const element of page.querySelectorAll('nav, footer, script, style, noscript, template, [aria-hidden="true"]')) element.remove();
  const body = page.body ?? page.documentElement;
  return { title: pageTitle || undefined, pages: [markdownFromHtml(body?.innerHTML ?? '')] };
}

/** linkedom builds no body for a bare fragment (`<div>…`): give it a document around it. */
function asDocument(html: string): string {
  return /<(html|body)[\s>]/i.test(html.slice(0, 4096)) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`;
}

function decodeHtml(input: DocumentInput): string {
  if (charsetOf(input.mimeType) !== undefined) return decodeText(input);
  const head = input.bytes.subarray(0, 2048).toString('latin1');
  const declared = /<meta[^>]+charset\s*=\s*["']?\s*([\w:.-]+)/i.exec(head)?.[1];
  return decodeText(input, declared);
}
