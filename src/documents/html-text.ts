/**
 * DOM → readable plain text: block elements become paragraphs (blank lines), list items lines
 * with a `- ` or `1. ` marker (nested lists indented), table rows lines with cells joined by
 * ` | `, `<pre>` kept verbatim, inline whitespace collapsed. Script, style and other non-text
 * elements are skipped. Used for HTML pages (after article extraction) and DOCX (mammoth's
 * HTML), so both keep lists and tables readable. Works on any DOM implementation through the
 * small node interface below (linkedom here).
 */

export interface TextNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<TextNode>;
  getAttribute?(name: string): string | null;
}

const ELEMENT = 1;
const TEXT = 3;
const CDATA = 4;

const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'HEAD', 'IFRAME', 'OBJECT', 'EMBED', 'CANVAS', 'AUDIO', 'VIDEO', 'MAP', 'SELECT', 'INPUT', 'TEXTAREA', 'IMG', 'PICTURE', 'SOURCE', 'TITLE', 'META', 'LINK']);
const BLOCKS = new Set([
  'P', 'DIV', 'SECTION', 'ARTICLE', 'MAIN', 'HEADER', 'FOOTER', 'ASIDE', 'NAV', 'BLOCKQUOTE', 'FIGURE', 'FIGCAPTION', 'ADDRESS', 'DETAILS',
  'SUMMARY', 'FORM', 'FIELDSET', 'LEGEND', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HR', 'DL', 'UL', 'OL', 'TABLE', 'CAPTION', 'CENTER', 'BODY', 'HTML',
]);
const LINES = new Set(['DT', 'DD', 'TR']);

class TextWriter {
  private readonly parts: string[] = [];
  /** Newlines at the end of the output (0 = mid-line); starts as if after a paragraph. */
  private trailingNewlines = 2;
  /** A collapsed space is owed before the next word on this line. */
  private pendingSpace = false;

  /** Inline text: whitespace runs become one space, none at a line start. */
  inline(text: string): void {
    const words = text.split(/[ \t\n\r\f\u200b]+/);
    for (let index = 0; index < words.length; index += 1) {
      const word = words[index]!;
      if (index > 0) this.pendingSpace = true;
      if (word === '') continue;
      if (this.pendingSpace && this.trailingNewlines === 0) this.parts.push(' ');
      this.parts.push(word);
      this.trailingNewlines = 0;
      this.pendingSpace = false;
    }
  }

  /** Text written as is (preformatted). */
  verbatim(text: string): void {
    if (text === '') return;
    if (this.pendingSpace && this.trailingNewlines === 0) this.parts.push(' ');
    this.parts.push(text);
    const match = /\n*$/.exec(text)!;
    this.trailingNewlines = match[0].length === text.length ? this.trailingNewlines + match[0].length : match[0].length;
    this.pendingSpace = false;
  }

  /** Between table cells on one row. */
  cellSeparator(): void {
    if (this.trailingNewlines === 0) this.parts.push(' | ');
    this.pendingSpace = false;
  }

  /** At least `count` newlines here (1 = new line, 2 = new paragraph); never at the very start. */
  newlines(count: number): void {
    if (this.parts.length > 0 && this.trailingNewlines < count) {
      this.parts.push('\n'.repeat(count - this.trailingNewlines));
      this.trailingNewlines = count;
    }
    this.pendingSpace = false;
  }

  toString(): string {
    return this.parts
      .join('')
      .replace(/[ \t]+\n/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  }
}

interface ListState {
  ordered: boolean;
  next: number;
}

export function htmlToText(root: TextNode): string {
  const writer = new TextWriter();
  walk(root, writer, [], false);
  return writer.toString();
}

function walk(node: TextNode, writer: TextWriter, lists: ListState[], preformatted: boolean): void {
  if (node.nodeType === TEXT || node.nodeType === CDATA) {
    const text = node.textContent ?? '';
    if (preformatted) writer.verbatim(text);
    else writer.inline(text);
    return;
  }
  if (node.nodeType !== ELEMENT && node.nodeType !== 9 && node.nodeType !== 11) {
    return;
  }
  const name = node.nodeName.toUpperCase();
  if (SKIPPED.has(name)) return;
  if (node.getAttribute?.('hidden') !== null && node.getAttribute?.('hidden') !== undefined) return;

  switch (name) {
    case 'BR':
      if (preformatted) writer.verbatim('\n');
      else writer.newlines(1);
      return;
    case 'PRE':
      writer.newlines(2);
      children(node, writer, lists, true);
      writer.newlines(2);
      return;
    case 'UL':
    case 'OL': {
      // A nested list starts on its own line; a top-level one is its own paragraph.
      writer.newlines(lists.length === 0 ? 2 : 1);
      const start = Number(node.getAttribute?.('start') ?? '1');
      lists.push({ ordered: name === 'OL', next: Number.isInteger(start) ? start : 1 });
      children(node, writer, lists, preformatted);
      lists.pop();
      writer.newlines(lists.length === 0 ? 2 : 1);
      return;
    }
    case 'LI': {
      // The item's content (paragraphs, a nested list) is written apart, then set after the
      // marker with its further lines indented under the first: nesting shows as indentation.
      const list = lists.at(-1);
      const marker = list?.ordered === true ? `${list.next++}.` : '-';
      const inner = new TextWriter();
      children(node, inner, lists, preformatted);
      const body = inner.toString().replace(/\n{2,}/g, '\n').replace(/\n/g, '\n  ');
      writer.newlines(1);
      writer.verbatim(`${marker} ${body}`);
      writer.newlines(1);
      return;
    }
    case 'TD':
    case 'TH':
      cell(node, writer, lists);
      return;
    default:
      break;
  }

  const block = BLOCKS.has(name);
  const line = LINES.has(name);
  if (block) writer.newlines(2);
  else if (line) writer.newlines(1);
  children(node, writer, lists, preformatted);
  if (block) writer.newlines(2);
  else if (line) writer.newlines(1);
}

function children(node: TextNode, writer: TextWriter, lists: ListState[], preformatted: boolean): void {
  const nodes = node.childNodes;
  for (let index = 0; index < nodes.length; index += 1) walk(nodes[index]!, writer, lists, preformatted);
}

/** A table cell's text on the row's line, after a ` | ` unless it is the first cell. */
function cell(node: TextNode, writer: TextWriter, lists: ListState[]): void {
  const inner = new TextWriter();
  const nodes = node.childNodes;
  for (let index = 0; index < nodes.length; index += 1) walk(nodes[index]!, inner, lists, false);
  const text = inner.toString().replace(/\s*\n\s*/g, ' ');
  if (text === '') return;
  writer.cellSeparator();
  writer.verbatim(text);
}
