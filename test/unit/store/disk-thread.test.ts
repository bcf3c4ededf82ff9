import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readWholeFile, requestFolderSyncs, writeNewFileInFolderSynced, writeNewFilesSynced } from '../../../src/store/disk-thread.js';

const folder = await mkdtemp(path.join(tmpdir(), 'igw-synced-write-'));
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('the disk thread: writeNewFilesSynced, readWholeFile', () => {
  it('creates every file of every concurrent call whole, mode 0600, and resolves each call', async () => {
    // 40 calls at once: the first goes out alone, the rest wait and go out as one batch.
    const calls = Array.from({ length: 40 }, (_, call) =>
      writeNewFilesSynced([
        { path: path.join(folder, `${call}.text`), bytes: Buffer.from(`text ${call} `.repeat(call + 1)) },
        { path: path.join(folder, `${call}.vec`), bytes: new Uint8Array(Array.from({ length: 100 + call }, (_, at) => (at * call) % 256)) },
      ]),
    );
    await Promise.all(calls);
    for (let call = 0; call < 40; call += 1) {
      expect(await readFile(path.join(folder, `${call}.text`), 'utf8')).toBe(`text ${call} `.repeat(call + 1));
      expect([...(await readFile(path.join(folder, `${call}.vec`)))]).toEqual(Array.from({ length: 100 + call }, (_, at) => (at * call) % 256));
      expect((await stat(path.join(folder, `${call}.vec`))).mode & 0o777).toBe(0o600);
    }
  });

  it('writes only the bytes of a view into a larger buffer (a pooled Buffer slice)', async () => {
    const pooled = Buffer.from('0123456789abcdef');
    await writeNewFilesSynced([{ path: path.join(folder, 'slice'), bytes: pooled.subarray(4, 8) }]);
    expect(await readFile(path.join(folder, 'slice'), 'utf8')).toBe('4567');
  });

  it('refuses a file that exists (EEXIST) without failing the other calls of its batch, and leaves the existing file as it was', async () => {
    await writeFile(path.join(folder, 'taken'), 'kept');
    const results = await Promise.allSettled([
      writeNewFilesSynced([{ path: path.join(folder, 'before'), bytes: Buffer.from('a') }]),
      writeNewFilesSynced([{ path: path.join(folder, 'free'), bytes: Buffer.from('b') }, { path: path.join(folder, 'taken'), bytes: Buffer.from('c') }]),
      writeNewFilesSynced([{ path: path.join(folder, 'after'), bytes: Buffer.from('d') }]),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(((results[1] as PromiseRejectedResult).reason as NodeJS.ErrnoException).code).toBe('EEXIST');
    expect(await readFile(path.join(folder, 'taken'), 'utf8')).toBe('kept');
    expect(await readFile(path.join(folder, 'after'), 'utf8')).toBe('d');
  });

  it('a missing folder rejects with ENOENT and the next write still works', async () => {
    await expect(writeNewFilesSynced([{ path: path.join(folder, 'no-such-folder', 'x'), bytes: Buffer.from('x') }])).rejects.toMatchObject({ code: 'ENOENT' });
    await writeNewFilesSynced([{ path: path.join(folder, 'next'), bytes: Buffer.from('next') }]);
    expect(await readFile(path.join(folder, 'next'), 'utf8')).toBe('next');
  });

  it('reads whole files, concurrently with writes; a missing one rejects with ENOENT', async () => {
    await writeFile(path.join(folder, 'to-read'), Buffer.from('abc'.repeat(5000)));
    const [read, , missing] = await Promise.allSettled([
      readWholeFile(path.join(folder, 'to-read')),
      writeNewFilesSynced([{ path: path.join(folder, 'written-meanwhile'), bytes: Buffer.from('w') }]),
      readWholeFile(path.join(folder, 'not-there')),
    ]);
    expect((read as PromiseFulfilledResult<Buffer>).value.toString()).toBe('abc'.repeat(5000));
    expect(((missing as PromiseRejectedResult).reason as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(await readFile(path.join(folder, 'written-meanwhile'), 'utf8')).toBe('w');
  });
});

describe('the request disk thread: writeNewFileInFolderSynced', () => {
  it('creates each upload whole (0600) and fsyncs its folder once per batch: a lone call runs one, 30 concurrent calls two', async () => {
    const uploads = path.join(folder, 'uploads');
    await mkdir(uploads);
    const before = requestFolderSyncs();
    await writeNewFileInFolderSynced({ path: path.join(uploads, 'lone'), bytes: Buffer.from('lone') }, uploads);
    expect(requestFolderSyncs() - before).toBe(1);
    // The first goes out alone; the other 29 queue meanwhile and go out as one batch sharing one folder fsync.
    await Promise.all(Array.from({ length: 30 }, (_, call) => writeNewFileInFolderSynced({ path: path.join(uploads, `u${call}`), bytes: Buffer.from(`upload ${call}`) }, uploads)));
    expect(requestFolderSyncs() - before).toBe(3);
    for (let call = 0; call < 30; call += 1) {
      expect(await readFile(path.join(uploads, `u${call}`), 'utf8')).toBe(`upload ${call}`);
      expect((await stat(path.join(uploads, `u${call}`))).mode & 0o777).toBe(0o600);
    }
  });

  it('a folder that cannot be synced fails only the jobs that named it', async () => {
    const uploads = path.join(folder, 'uploads-2');
    await mkdir(uploads);
    const results = await Promise.allSettled([
      writeNewFileInFolderSynced({ path: path.join(uploads, 'first'), bytes: Buffer.from('1') }, uploads),
      writeNewFileInFolderSynced({ path: path.join(uploads, 'bad'), bytes: Buffer.from('2') }, path.join(folder, 'no-such-folder')),
      writeNewFileInFolderSynced({ path: path.join(uploads, 'good'), bytes: Buffer.from('3') }, uploads),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(((results[1] as PromiseRejectedResult).reason as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(await readFile(path.join(uploads, 'good'), 'utf8')).toBe('3');
  });
});
