/** Characters of chunk text shown per search hit. */
export const SNIPPET_CHARS = 240;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The part of a hit's text worth showing for `query`: a window of about SNIPPET_CHARS around
 * where most of the query's words occur (a word matches by its first letters, so "rotate" finds
 * "rotation"), cut at word boundaries and marked with … where text was left out. A chunk often
 * starts far from the passage that matched; its first line alone would not say why it is a hit.
 */
export function snippet(text: string, query: string, width = SNIPPET_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= width) return flat;
  const terms = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])];
  const occurrences: Array<{ at: number; term: number }> = [];
  terms.forEach((term, index) => {
    const stem = term.length > 5 ? term.slice(0, term.length - 2) : term;
    for (const match of flat.matchAll(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(stem)}`, 'giu'))) occurrences.push({ at: match.index, term: index });
  });
  let start = 0;
  let best = 0;
  for (const occurrence of occurrences) {
    const from = Math.max(0, Math.min(occurrence.at - Math.floor(width / 4), flat.length - width));
    const covered = new Set(occurrences.filter((other) => other.at >= from && other.at < from + width).map((other) => other.term)).size;
    if (covered > best) {
      best = covered;
      start = from;
    }
  }
  let end = Math.min(flat.length, start + width);
  // Whole words only.
  if (start > 0) start = flat.indexOf(' ', start) + 1 || start;
  if (end < flat.length) end = flat.lastIndexOf(' ', end) > start ? flat.lastIndexOf(' ', end) : end;
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}
