import { matchesFilter, type AttributeFilter } from './filters.js';
import type { LabelTable } from './label-table.js';
import type { VectorStoreFileRecord } from './records.js';
import type { VectorStoreRepository } from './repository.js';

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
 *   a file's chunks are asked about one by one. The result is kept with the record and attributes
 *   object it was computed on, so a change meanwhile is seen.
 */
export function acceptedFiles(
  repository: VectorStoreRepository,
  storeId: string,
  table: LabelTable,
  filter: AttributeFilter | undefined,
): (slot: number) => VectorStoreFileRecord | undefined {
  const filtered = new Map<number, { file: VectorStoreFileRecord; attributes: VectorStoreFileRecord['attributes']; passes: boolean }>();
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
    // Slots move down when a file is removed: a result is reused only for the same record with the same attributes.
    const known = filtered.get(slot);
    if (known !== undefined && known.file === file && known.attributes === file.attributes) return known.passes ? file : undefined;
    const passes = matchesFilter(filter, file.attributes);
    filtered.set(slot, { file, attributes: file.attributes, passes });
    return passes ? file : undefined;
  };
}
