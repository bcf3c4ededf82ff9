import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, acquireLock, type LockOwner } from '../../../src/store/lock.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'igw-unit-lock-'));
  dirs.push(dir);
  return dir;
}

const lockFile = (dir: string) => path.join(dir, 'igw.lock');
const owner = async (dir: string) => JSON.parse(await readFile(lockFile(dir), 'utf8')) as LockOwner;

/** A pid that belonged to a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  const pid = child.pid!;
  await new Promise((resolve) => child.once('exit', resolve));
  return pid;
}

/** A live process other than this one, holding the lock the way another igw would. */
async function liveOtherProcess(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((resolve) => child.once('spawn', resolve));
  return child.pid!;
}

describe('acquireLock', () => {
  it('writes the owner (pid, purpose, start) with mode 0600 and removes it on release', async () => {
    const dir = await tempDir();
    const lock = await acquireLock(dir, 'igw serve');
    expect(await owner(dir)).toMatchObject({ pid: process.pid, purpose: 'igw serve' });
    expect(Number.isNaN(Date.parse((await owner(dir)).started_at))).toBe(false);
    expect((await stat(lockFile(dir))).mode & 0o777).toBe(0o600);
    await lock.release();
    await expect(stat(lockFile(dir))).rejects.toMatchObject({ code: 'ENOENT' });
    await lock.release();
    const again = await acquireLock(dir, 'igw keys create');
    expect(await owner(dir)).toMatchObject({ purpose: 'igw keys create' });
    await again.release();
  });

  it('a lock held by another live process → DataDirLockedError naming it', async () => {
    const dir = await tempDir();
    const pid = await liveOtherProcess();
    const held: LockOwner = { pid, purpose: 'igw serve', started_at: '2026-01-01T00:00:00.000Z' };
    await writeFile(lockFile(dir), JSON.stringify(held));
    const error = await acquireLock(dir, 'igw serve').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DataDirLockedError);
    expect((error as DataDirLockedError).owner).toEqual(held);
    expect((error as DataDirLockedError).dataDir).toBe(dir);
    expect((error as Error).message).toContain(String(pid));
    expect((error as Error).message).toContain('igw serve');
    // The holder's lock is left alone.
    expect(await owner(dir)).toEqual(held);
  });

  it('a second acquire while this process holds the lock → DataDirLockedError', async () => {
    // Regression: a lock whose pid is this process's must not be treated as stale while it is held
    // here, or two holders in one process both "own" the data dir and the first release unlocks the second.
    const dir = await tempDir();
    const first = await acquireLock(dir, 'igw serve');
    try {
      await expect(acquireLock(dir, 'igw serve')).rejects.toBeInstanceOf(DataDirLockedError);
    } finally {
      await first.release();
    }
    // Once released here, the same process may take it again.
    const again = await acquireLock(dir, 'igw serve');
    await again.release();
  });

  it('a lock file left with this pid by an earlier process (pid reuse, e.g. containers) is stale', async () => {
    const dir = await tempDir();
    await writeFile(lockFile(dir), JSON.stringify({ pid: process.pid, purpose: 'igw serve', started_at: '2026-01-01T00:00:00.000Z' }));
    const lock = await acquireLock(dir, 'igw serve');
    expect(await owner(dir)).toMatchObject({ pid: process.pid });
    expect((await owner(dir)).started_at).not.toBe('2026-01-01T00:00:00.000Z');
    await lock.release();
  });

  it.each<{ name: string; content: () => Promise<string> }>([
    { name: 'the pid of a dead process', content: async () => JSON.stringify({ pid: await deadPid(), purpose: 'igw serve', started_at: '2026-01-01T00:00:00.000Z' }) },
    { name: 'a half-written file', content: async () => '{"pid": 12' },
    { name: 'an empty file', content: async () => '' },
  ])('a stale lock ($name) is taken over', async ({ content }) => {
    const dir = await tempDir();
    await writeFile(lockFile(dir), await content());
    const lock = await acquireLock(dir, 'igw serve');
    expect(await owner(dir)).toMatchObject({ pid: process.pid, purpose: 'igw serve' });
    await lock.release();
  });
});
