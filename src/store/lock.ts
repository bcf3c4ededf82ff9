import { open, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';

export interface LockOwner {
  pid: number;
  purpose: string;
  started_at: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner,
  ) {
    super(`data dir ${dataDir} is in use by ${owner.purpose} (pid ${owner.pid}, since ${owner.started_at})`);
    this.name = 'DataDirLockedError';
  }
}

/** Locks this process holds: our own pid in a lock file is only stale when we do not hold it. */
const heldHere = new Set<string>();

export interface DataDirLock {
  release(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One writer per data dir (DESIGN §4): an exclusive-create lock file holding the owner's pid.
 * A lock whose owner died (SIGKILL) is stale and taken over.
 */
export async function acquireLock(dataDir: string, purpose: string): Promise<DataDirLock> {
  const lockPath = path.join(dataDir, 'igw.lock');
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      const owner: LockOwner = { pid: process.pid, purpose, started_at: new Date().toISOString() };
      await handle.writeFile(JSON.stringify(owner));
      await handle.close();
      let released = false;
      heldHere.add(lockPath);
      return {
        async release() {
          if (released) return;
          released = true;
          heldHere.delete(lockPath);
          await unlink(lockPath).catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let owner = await readOwner(lockPath);
      // A competitor may be between its exclusive create and its write: give it a moment.
      if (owner === null) owner = await new Promise((resolve) => setTimeout(resolve, 100)).then(() => readOwner(lockPath));
      if (owner !== null && (owner.pid === process.pid ? heldHere.has(lockPath) : isAlive(owner.pid))) throw new DataDirLockedError(dataDir, owner);
      // Stale (owner gone) or unreadable half-written file: remove and retry.
      await unlink(lockPath).catch(() => undefined);
    }
  }
  throw new Error(`could not take the lock ${lockPath}; remove it if no igw process is running`);
}

async function readOwner(lockPath: string): Promise<LockOwner | null> {
  try {
    return JSON.parse(await readFile(lockPath, 'utf8')) as LockOwner;
  } catch {
    return null;
  }
}
