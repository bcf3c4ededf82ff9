import { writeFileAtomic } from '../store/atomic-write.js';

/**
 * Writes a file given as parts (a sealed index snapshot from Sealer.sealInSlices) durably and
 * atomically through the one helper (store/atomic-write.ts: temp file 0600, parts written in
 * order, fsync, rename). A crash leaves the old or the new bytes; nothing is joined in memory first.
 */
export function writePartsAtomic(filePath: string, parts: readonly Buffer[]): Promise<void> {
  return writeFileAtomic(filePath, parts);
}
