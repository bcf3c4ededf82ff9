import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import { AtomicJsonFile } from './atomic-json-file.js';

/** One lowdb document per collection, so one write never rewrites unrelated collections (DESIGN §4). */
export async function openCollection<T>(dataDir: string, name: string, initial: T): Promise<Low<T>> {
  const database = new Low<T>(new AtomicJsonFile<T>(path.join(dataDir, `${name}.json`)), initial);
  await database.read();
  return database;
}

/** Creates the data dir (and sub-folders) with mode 0700. */
export async function ensureDataDir(dataDir: string, ...subfolders: string[]): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  for (const folder of subfolders) await mkdir(path.join(dataDir, folder), { recursive: true, mode: 0o700 });
}
