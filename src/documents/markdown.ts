import { decodeText } from './decode-text.js';
import type { DocumentInput, ExtractedDocument } from './types.js';

/**
 * Markdown stays Markdown: headings, lists and code fences are meaningful to the embedding
 * model and to a reader of a search result, and blank lines already separate its blocks.
 * The title is the front matter's `title:` or else the first level-1 heading.
 */
export function extractMarkdown(input: DocumentInput): ExtractedDocument {
  const text = decodeText(input);
  const title = frontMatterTitle(text) ?? firstHeading(text);
  return title === undefined ? { text, format: 'markdown' } : { text, format: 'markdown', title };
}

function frontMatterTitle(text: string): string | undefined {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (match === null) return undefined;
  const line = /^title:\s*(.+)$/m.exec(match[1]!);
  return line === null ? undefined : cleanTitle(line[1]!.replace(/^(["'])(.*)\1$/, '$2'));
}

function firstHeading(text: string): string | undefined {
  let inFence = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence) {
      const heading = /^#\s+(.+?)\s*#*\s*$/.exec(line);
      if (heading !== null) return cleanTitle(heading[1]!);
    }
  }
  return undefined;
}

/** Inline markup out of a heading: `**AI SDK**` → `AI SDK`, `[x](url)` → `x`. */
function cleanTitle(raw: string): string | undefined {
  const title = raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]+/g, '')
    .trim();
  return title === '' ? undefined : title;
}
