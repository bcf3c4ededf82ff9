import { mkdir } from 'node:fs/promises';
import path from 'node:path';

/** Creates the data dir (and sub-folders) with mode 0700. */
export async function ensureDataDir(dataDir: string, ...subfolders: string[]): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  for (const folder of subfolders) await mkdir(path.join(dataDir, folder), { recursive: true, mode: 0o700 });
}
