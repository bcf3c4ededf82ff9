import { gfm } from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';

/**
 * HTML → Markdown with turndown (the de-facto HTML-to-Markdown converter) and its GFM plugin
 * (tables, strikethrough, task lists). ATX headings, fenced code and `-` bullets: what Markdown
 * readers and models expect. Scripts, styles and forms carry no document text.
 */
let service: TurndownService | undefined;

function turndown(): TurndownService {
  if (service === undefined) {
    service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_', hr: '---' });
    service.use(gfm);
    service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'form', 'button', 'select', 'input', 'textarea']);
    // `- item` / `1. item` with one space (turndown's default pads markers to four columns);
    // continuation lines are indented to the item's text so nesting survives.
    service.addRule('list-item', {
      filter: 'li',
      replacement: (content, node, options) => {
        const item = node as unknown as { parentNode: unknown; nextSibling: unknown };
        const parent = item.parentNode as { nodeName: string; getAttribute(name: string): string | null; children: ArrayLike<unknown> } | null;
        let marker = `${options.bulletListMarker ?? '-'} `;
        if (parent?.nodeName === 'OL') {
          const start = Number(parent.getAttribute('start') ?? '1');
          const index = Array.prototype.indexOf.call(parent.children, node);
          marker = `${(Number.isFinite(start) ? start : 1) + index}. `;
        }
        const body = content.replace(/^\n+/, '').replace(/\n+$/, '\n').replace(/\n/gm, `\n${' '.repeat(marker.length)}`);
        return marker + body + (item.nextSibling !== null && !body.endsWith('\n') ? '\n' : '');
      },
    });
    // Images: the alt text is content, an inline data: URL is not.
    service.addRule('images-without-data-urls', {
      filter: 'img',
      replacement: (_content, node) => {
        const element = node as unknown as { getAttribute(name: string): string | null };
        const alt = (element.getAttribute('alt') ?? '').trim();
        const src = (element.getAttribute('src') ?? '').trim();
        if (src === '' || src.startsWith('data:')) return alt;
        return `![${alt}](${src})`;
      },
    });
  }
  return service;
}

export function markdownFromHtml(html: string): string {
  return tidyMarkdown(turndown().turndown(html));
}

/** At most one blank line in a row, no trailing spaces: the output is read and diffed by people. */
export function tidyMarkdown(markdown: string): string {
  return markdown
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
