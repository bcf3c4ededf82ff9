import { open, rename, unlink } from 'node:fs/promises';

/**
 * Bytes to write: one buffer or string, or parts written in order (a sealed snapshot in slices:
 * nothing is joined in memory first, a join of tens of MB would hold the event loop).
 */
export type FileContent = Buffer | string | readonly Buffer[];

/**
 * Writes a file and syncs it (mode 0600). `wx` (the default) refuses to replace an existing
 * file: for content that is only referenced once this resolves, no temp file and rename are needed.
 */
export async function writeSynced(filePath: string, data: FileContent, flags: 'wx' | 'w' = 'wx'): Promise<void> {
  const handle = await open(filePath, flags, 0o600);
  try {
    if (typeof data === 'string' || Buffer.isBuffer(data)) await handle.writeFile(data);
    else {
      for (const part of data) {
        let written = 0;
        while (written < part.length) written += (await handle.write(part, written, part.length - written)).bytesWritten;
      }
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * The one place igw replaces a file: temp file, fsync, rename (mode 0600), so a crash leaves
 * the old or the new bytes, never half of them (DESIGN §4). `suffix` names the temp file
 * (`<file>.<suffix>`): writers that may overlap pass their own. A failed write removes its temp file.
 */
export async function writeFileAtomic(filePath: string, data: FileContent, suffix = 'tmp'): Promise<void> {
  const temporary = `${filePath}.${suffix}`;
  try {
    await writeSynced(temporary, data, 'w');
    await rename(temporary, filePath);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
