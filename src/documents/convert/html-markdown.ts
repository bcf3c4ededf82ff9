import { readHtml } from '../html.js';
import type { TextNode } from '../html-text.js';
import type { DocumentInput } from '../types.js';
import { markdownFromHtml } from './markdown-from-html.js';

/**
 * An HTML page → Markdown: the same part of the page indexing reads (the article of an article
 * page; else the body less navigation, footers and scripts; fragments included), written by
 * turndown instead of as plain text.
 */
export function htmlPageToMarkdown(input: DocumentInput): { title: string | undefined; pages: string[] } {
  const { text, title } = readHtml(input, (node: TextNode) => markdownFromHtml((node as unknown as { innerHTML: string }).innerHTML ?? ''));
  return { title: title === '' ? undefined : title, pages: [text] };
}
