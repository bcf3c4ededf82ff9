import { open, rename } from 'node:fs/promises';

/** Writes a file durably and atomically (temp file, fsync, rename; mode 0600): a crash leaves the old or the new bytes. */
export async function writeFileAtomic(filePath: string, data: Buffer): Promise<void> {
  const temporary = `${filePath}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, filePath);
}
