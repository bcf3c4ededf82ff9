/**
 * "Did you mean …?" for names a user typed (config keys, ids): the closest candidate by edit
 * distance (insert, delete, substitute, swap of two neighbours), case-insensitive, when it is
 * close enough to be a plausible typo — at most a third of the typed length, and never more
 * than 3 edits, so an unrelated word gets no suggestion.
 */
export function closestMatch(typed: string, candidates: Iterable<string>): string | undefined {
  const wanted = typed.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(wanted.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** ` (did you mean "x"?)`, or '' when nothing is close: ready to append to a message. */
export function didYouMean(typed: string, candidates: Iterable<string>): string {
  const match = closestMatch(typed, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}

/** Optimal string alignment distance (Damerau–Levenshtein without repeated edits of one substring). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, row) => Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)));
  for (let row = 1; row < rows; row += 1) {
    for (let column = 1; column < columns; column += 1) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let value = Math.min(table[row - 1]![column]! + 1, table[row]![column - 1]! + 1, table[row - 1]![column - 1]! + cost);
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) value = Math.min(value, table[row - 2]![column - 2]! + 1);
      table[row]![column] = value;
    }
  }
  return table[a.length]![b.length]!;
}
