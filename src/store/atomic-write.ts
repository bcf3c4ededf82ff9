import { open, rename, unlink } from 'node:fs/promises';

/**
 * Writes a file and syncs it (mode 0600). `wx` (the default) refuses to replace an existing
 * file: for content that is only referenced once this resolves, no temp file and rename are needed.
 */
export async function writeSynced(filePath: string, data: Buffer | string, flags: 'wx' | 'w' = 'wx'): Promise<void> {
  const handle = await open(filePath, flags, 0o600);
  try {
    await handle.writeFile(data);
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
export async function writeFileAtomic(filePath: string, data: Buffer | string, suffix = 'tmp'): Promise<void> {
  const temporary = `${filePath}.${suffix}`;
  try {
    await writeSynced(temporary, data, 'w');
    await rename(temporary, filePath);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
