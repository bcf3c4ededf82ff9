/**
 * PDF text items → lines in reading order. Pure (no pdf.js here) so it is tested on its own.
 *
 * The content stream's order is the author's order, which for typeset documents is the reading
 * order (a two-column page is written column by column), so lines are built in that order: a
 * new line starts where the baseline moves. Two things the stream order gets wrong are fixed
 * geometrically:
 * - short fragments written apart from their line — line numbers of transcripts and legal
 *   filings, bullets, footnote marks — are put back on the line that shares their baseline;
 * - fragments without such a line (a line number on an empty line, a page number) go after
 *   the nearest line above them.
 * A vertical gap well above the page's usual line spacing becomes a paragraph break.
 */

export interface LayoutItem {
  str: string;
  /** Left edge, PDF units from the page's left. */
  x: number;
  /** Baseline, PDF units from the page's bottom (larger = higher on the page). */
  y: number;
  width: number;
  fontSize: number;
}

interface Line {
  y: number;
  left: number;
  right: number;
  fontSize: number;
  /** Items in the order they are read. */
  items: LayoutItem[];
  /** Position in stream order. */
  order: number;
}

/** A fragment this short on a line of its own is a line number, bullet or mark. */
const SHORT_LINE_CHARS = 4;

export function layoutPageText(items: readonly LayoutItem[]): string {
  const lines = streamLines(items.filter((item) => item.str !== ''));
  if (lines.length === 0) return '';
  const isShort = (line: Line): boolean => lineText(line).trim().length <= SHORT_LINE_CHARS;

  // Short lines join the full line on their baseline.
  const main: Line[] = [];
  const orphans: Line[] = [];
  for (const line of lines) if (!isShort(line)) main.push(line);
  for (const line of lines) {
    if (!isShort(line)) continue;
    const partner = main.find((candidate) => sameBaseline(candidate, line) && (line.right <= candidate.left || line.left >= candidate.right));
    if (partner === undefined) orphans.push(line);
    else {
      partner.items = line.left < partner.left ? [...line.items, ...partner.items] : [...partner.items, ...line.items];
      partner.left = Math.min(partner.left, line.left);
      partner.right = Math.max(partner.right, line.right);
    }
  }
  if (main.length === 0) return orphans.map(lineText).join('\n');

  // Orphans go after the nearest main line above them, top to bottom.
  const after = new Map<Line | null, Line[]>();
  for (const orphan of orphans) {
    let anchor: Line | null = null;
    for (const line of main) if (line.y > orphan.y && (anchor === null || line.y < anchor.y)) anchor = line;
    const group = after.get(anchor) ?? [];
    group.push(orphan);
    after.set(anchor, group);
  }
  const ordered: Line[] = [];
  const placeOrphans = (anchor: Line | null): void => {
    const group = after.get(anchor);
    if (group !== undefined) ordered.push(...group.sort((a, b) => b.y - a.y));
  };
  placeOrphans(null);
  for (const line of main) {
    ordered.push(line);
    placeOrphans(line);
  }

  const spacing = typicalSpacing(ordered);
  let text = '';
  ordered.forEach((line, index) => {
    if (index > 0) {
      const gap = ordered[index - 1]!.y - line.y;
      text += gap > spacing * 1.5 ? '\n\n' : '\n';
    }
    text += lineText(line);
  });
  return text;
}

/** Consecutive items (stream order) on one baseline form a line. */
function streamLines(items: readonly LayoutItem[]): Line[] {
  const lines: Line[] = [];
  let current: Line | undefined;
  for (const item of items) {
    const size = Math.max(item.fontSize, 1);
    if (current !== undefined && Math.abs(current.y - item.y) <= Math.max(current.fontSize, size) * 0.5) {
      current.items.push(item);
      current.left = Math.min(current.left, item.x);
      current.right = Math.max(current.right, item.x + item.width);
      current.fontSize = Math.max(current.fontSize, size);
      continue;
    }
    current = { y: item.y, left: item.x, right: item.x + item.width, fontSize: size, items: [item], order: lines.length };
    lines.push(current);
  }
  return lines.filter((line) => lineText(line).trim() !== '');
}

function sameBaseline(a: Line, b: Line): boolean {
  return Math.abs(a.y - b.y) <= Math.max(a.fontSize, b.fontSize) * 0.5;
}

/** Items joined; a space where the gap between two items is wider than a thin space. */
function lineText(line: Line): string {
  let text = '';
  let end: number | undefined;
  for (const item of line.items) {
    if (end !== undefined && text !== '' && !/\s$/.test(text) && !/^\s/.test(item.str) && item.x - end > item.fontSize * 0.15) text += ' ';
    text += item.str;
    end = item.x + item.width;
  }
  return text.replace(/\s+/g, ' ').trim();
}

/** The (lower) median downward distance between consecutive lines (double spacing is still normal). */
function typicalSpacing(lines: readonly Line[]): number {
  const gaps: number[] = [];
  for (let index = 1; index < lines.length; index += 1) {
    const gap = lines[index - 1]!.y - lines[index]!.y;
    if (gap > 0) gaps.push(gap);
  }
  if (gaps.length === 0) return Number.POSITIVE_INFINITY;
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor((gaps.length - 1) / 2)]!;
}
