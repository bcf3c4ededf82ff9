/**
 * Words that carry no topic in a question ("what is the …", "how do I …"): dropping them moves
 * the query embedding toward the passages that answer it.
 */
const FILLER = new Set(
  (
    'a an the and or of to in on at for from by with about into over under is are was were be been being am do does did ' +
    'doing have has had can could should would will shall may might must i me my we our you your it its this that these ' +
    'those there here what which who whom whose when where why how please tell show explain find give describe ' +
    'know want need any some much many'
  ).split(' '),
);

/**
 * `rewrite_query`: a deterministic rewrite for recall (no model call, so it is free, instant and
 * reproducible): lower case, punctuation out, filler words out, duplicates out. When nothing
 * would remain, the query is only normalized.
 */
export function rewriteQuery(query: string): string {
  const words = query
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}\s'-]+/gu, ' ')
    .split(/\s+/)
    .map((word) => word.replace(/^['-]+|['-]+$/g, ''))
    .filter((word) => word !== '');
  const kept: string[] = [];
  for (const word of words) {
    if (FILLER.has(word) || kept.includes(word)) continue;
    kept.push(word);
  }
  return (kept.length > 0 ? kept : words).join(' ');
}
