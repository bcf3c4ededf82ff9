import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DirectorySync } from '../../../src/store/directory-sync.js';

/** Counts the folder fsyncs and holds each one open until released, so joins can be observed. */
class PacedSync extends DirectorySync {
  started = 0;
  private releases: Array<() => void> = [];

  protected override async syncOnce(): Promise<void> {
    this.started += 1;
    await new Promise<void>((resolve) => this.releases.push(resolve));
    await super.syncOnce();
  }

  releaseOne(): void {
    this.releases.shift()?.();
  }
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('DirectorySync', () => {
  let folder: string;
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('runs one fsync for a lone caller', async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'igw-dirsync-'));
    const sync = new PacedSync(folder);
    const done = sync.sync();
    await flush();
    sync.releaseOne();
    await done;
    expect(sync.started).toBe(1);
  });

  it('makes every caller that arrives during a sync wait for one more, shared sync', async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'igw-dirsync-'));
    const sync = new PacedSync(folder);
    const first = sync.sync();
    await flush();
    let laterDone = 0;
    const later = Array.from({ length: 10 }, () => sync.sync().then(() => { laterDone += 1; }));
    sync.releaseOne();
    await first;
    await flush();
    // The first sync began before their entries were made: they are not done with it.
    expect(laterDone).toBe(0);
    expect(sync.started).toBe(2);
    sync.releaseOne();
    await Promise.all(later);
    expect(laterDone).toBe(10);
    expect(sync.started).toBe(2);
  });

  it('starts afresh once nothing is running, and reports a missing folder', async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'igw-dirsync-'));
    const sync = new DirectorySync(folder);
    await sync.sync();
    await sync.sync();
    await expect(new DirectorySync(path.join(folder, 'missing')).sync()).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
