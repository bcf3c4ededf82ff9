import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { PathFilter } from './filter.js';

export interface ScannedFile {
  /** Relative to the synced folder, forward slashes. */
  path: string;
  bytes: number;
  mtimeMs: number;
}

/** Every regular file under `root` that the filter keeps (symlinks are not followed). */
export async function scanFolder(root: string, filter: PathFilter): Promise<ScannedFile[]> {
  const files: ScannedFile[] = [];
  const walk = async (relativeFolder: string): Promise<void> => {
    await filter.loadGitignore(relativeFolder);
    const entries = await readdir(path.join(root, relativeFolder), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relative = relativeFolder === '' ? entry.name : `${relativeFolder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (filter.folder(relative)) await walk(relative);
      } else if (entry.isFile() && filter.file(relative)) {
        try {
          const info = await stat(path.join(root, relative));
          files.push({ path: relative, bytes: info.size, mtimeMs: info.mtimeMs });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // deleted mid-scan
        }
      }
    }
  };
  await walk('');
  return files;
}

/** SHA-256 of a file's bytes, streamed (large files are never held in memory). */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function toRelative(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join('/');
}
