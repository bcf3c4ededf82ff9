import { open, rename } from 'node:fs/promises';

/**
 * Writes a file given as parts (a sealed index snapshot from Sealer.sealInSlices) durably and
 * atomically: temp file (mode 0600, DESIGN §6), every part written in order, fsync, rename. A
 * crash leaves the old or the new bytes. Nothing is joined in memory first: a join of tens of MB
 * would hold the event loop for as long as the slicing saved.
 */
export async function writePartsAtomic(filePath: string, parts: readonly Buffer[]): Promise<void> {
  const temporary = `${filePath}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    for (const part of parts) {
      let written = 0;
      while (written < part.length) written += (await handle.write(part, written, part.length - written)).bytesWritten;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, filePath);
}
