// One patch of hnswlib-node's sources (scripts/hnswlib-simd.mjs applies them to the copy it builds).
// A patch is all or nothing: every `before` must occur exactly once where it is looked for, else
// the file is not written and the build keeps that part of the library as it ships.
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Applies each part's `edits` ([before, after] pairs, in order) to `file`: with the part's `within`
 * (markers found one after the other), only between the last two of them, else anywhere. False
 * (and the file untouched) when the source is not the one this expects.
 */
export function editSource(file, parts) {
  let source = readFileSync(file, 'utf8');
  for (const { within = [], edits } of parts) {
    const found = [];
    for (const marker of within) {
      const at = source.indexOf(marker, found.at(-1) ?? 0);
      if (at < 0) return false;
      found.push(at);
    }
    const start = found.length >= 2 ? found.at(-2) : 0;
    const end = found.length >= 2 ? found.at(-1) : source.length;
    let part = source.slice(start, end);
    for (const [before, after] of edits) {
      if (part.split(before).length !== 2) return false;
      part = part.replace(before, () => after);
    }
    source = source.slice(0, start) + part + source.slice(end);
  }
  writeFileSync(file, source);
  return true;
}
