import { watch } from 'chokidar';
import type { PathFilter } from './filter.js';
import { toRelative } from './scan.js';

/** Quiet time after the last event before a burst (an editor's save dance) is synced. */
export const DEBOUNCE_MS = 300;
/** A steady stream of changes is still synced at least this often. */
const MAX_WAIT_MS = 3000;

export interface FolderWatch {
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Watches the folder (chokidar) and hands over the set of changed relative paths once a burst
 * has settled; `.gitignore` edits ask for a full rescan instead (the rules changed).
 */
export function watchFolder(root: string, filter: PathFilter, onBurst: (paths: Set<string> | 'rescan') => void): FolderWatch {
  let dirty = new Set<string>();
  let rescan = false;
  let timer: NodeJS.Timeout | null = null;
  let firstAt = 0;
  const flush = () => {
    timer = null;
    const burst = rescan ? 'rescan' : dirty;
    dirty = new Set();
    rescan = false;
    onBurst(burst);
  };
  const note = (absolute: string) => {
    const relative = toRelative(root, absolute);
    if (relative === '' || relative.startsWith('..')) return;
    if (relative === '.gitignore' || relative.endsWith('/.gitignore')) rescan = true;
    else dirty.add(relative);
    const now = Date.now();
    if (timer === null) firstAt = now;
    else clearTimeout(timer);
    timer = setTimeout(flush, Math.max(0, Math.min(DEBOUNCE_MS, firstAt + MAX_WAIT_MS - now)));
  };
  const watcher = watch(root, {
    ignoreInitial: true,
    persistent: true,
    ignored: (absolute, stats) => {
      const relative = toRelative(root, absolute);
      if (relative === '' || relative.startsWith('..')) return false;
      if (relative === '.gitignore' || relative.endsWith('/.gitignore')) return false;
      if (stats?.isDirectory() === true) return !filter.folder(relative);
      if (stats?.isFile() === true) return !filter.file(relative);
      return false;
    },
  });
  for (const event of ['add', 'change', 'unlink'] as const) watcher.on(event, note);
  watcher.on('unlinkDir', note);
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    async close() {
      if (timer !== null) clearTimeout(timer);
      await watcher.close();
    },
  };
}
