import { open, rename } from 'node:fs/promises';

/**
 * Writes a file and syncs it. `wx` (the default) refuses to replace an existing file: for
 * content that is only referenced once this resolves, so no temp file and rename are needed.
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
 * Writes a whole file so that a crash leaves either the old or the new content: temp file
 * (mode 0600) + fsync + rename. `suffix` keeps concurrent writers of one path apart.
 */
export async function writeFileAtomic(filePath: string, data: Buffer | string, suffix = 'tmp'): Promise<void> {
  const temporary = `${filePath}.${suffix}`;
  await writeSynced(temporary, data, 'w');
  await rename(temporary, filePath);
}
