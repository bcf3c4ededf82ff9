/**
 * "Did you mean …?" for names a person typed (model ids, config keys, flavors): the closest
 * candidate by edit distance (adjacent swaps count as one edit, as commander does for command
 * names), or undefined when nothing is close enough to be a plausible typo.
 */

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  let previousPrevious: number[] = [];
  let previous = Array.from({ length: columns }, (_, index) => index);
  for (let i = 1; i < rows; i += 1) {
    const current = [i];
    for (let j = 1; j < columns; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, previousPrevious[j - 2]! + 1);
      current.push(value);
    }
    previousPrevious = previous;
    previous = current;
  }
  return previous[columns - 1]!;
}

/**
 * The candidate closest to `input`, compared case-insensitively. Close enough means at most a
 * third of the input's length in edits (at least one), so `gpt-4o-mni` finds `gpt-4o-mini` but
 * `foo` does not find `local-echo`. Ties go to the first candidate given.
 */
export function closestMatch(input: string, candidates: Iterable<string>): string | undefined {
  const wanted = input.toLowerCase();
  const limit = Math.max(1, Math.floor(wanted.length / 3));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === input) continue;
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/** ` Did you mean "x"?` (with its leading space), or '' when nothing is close. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const match = closestMatch(input, candidates);
  return match === undefined ? '' : ` Did you mean "${match}"?`;
}
