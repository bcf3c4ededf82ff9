import { matchesFilter, type AttributeFilter } from './filters.js';
import type { LabelTable } from './label-table.js';
import type { VectorStoreFileRecord } from './records.js';
import type { VectorStoreRepository } from './repository.js';

/** Stamps of filtered searches (never reused: a filter result stamped by one search is never taken for another's). */
let lastFilterStamp = 0;

/**
 * Which files of one store a search counts, by slot of the store's label table (hybrid-search.ts
 * asks per proposed chunk): the file's record if it is completed and passes the filter, else
 * undefined. The same answers as a repository lookup per chunk, for less:
 * - the record is memoised in its table slot, stamped with the repository's `filesVersion`, so
 *   it is looked up (two string-keyed Map reads, cache misses at 100,000 files) once per file
 *   until a file is added or removed anywhere; its status is read from it each time (status
 *   changes are made on that object);
 * - the filter is evaluated once per file per search: BM25's rescan under a filter asks again for
 *   labels it already rejected (bm25-index.ts `ranked`, ~600 asks per search in a mixed run), and
 *   a file's chunks are asked about one by one. The result is kept in the file's table slot with
 *   this search's stamp and the attributes object it was computed on, so a change meanwhile is
 *   seen (two searches at once only overwrite each other's results, which are then computed again).
 */
export function acceptedFiles(
  repository: VectorStoreRepository,
  storeId: string,
  table: LabelTable,
  filter: AttributeFilter | undefined,
): (slot: number) => VectorStoreFileRecord | undefined {
  const stamp = filter === undefined ? 0 : ++lastFilterStamp;
  return (slot) => {
    const version = repository.filesVersion;
    let file: VectorStoreFileRecord | undefined;
    if (table.tagged(slot, version)) {
      file = table.tag(slot) as VectorStoreFileRecord | undefined;
    } else {
      file = repository.file(storeId, table.fileId(slot));
      table.setTag(slot, version, file);
    }
    if (file === undefined || file.status !== 'completed') return undefined;
    if (filter === undefined) return file;
    // Reused only for the attributes object it was computed on (a change replaces the object; results move with their slots).
    const known = table.passed(slot, stamp, file.attributes);
    if (known !== undefined) return known ? file : undefined;
    const passes = matchesFilter(filter, file.attributes);
    table.setPassed(slot, stamp, file.attributes, passes);
    return passes ? file : undefined;
  };
}
