import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { SealedDataError } from '../../../src/crypto/sealed.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { FileStore } from '../../../src/files/file-store.js';
import { randomIds } from '../../../src/util/ids.js';
import { rejection } from '../../helpers/async.js';

const dirs: string[] = [];
/** Stores left open (a reopen stands for a restart): closed at the end, so no journal handle is left to the garbage collector. */
const opened: FileStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
const key = randomBytes(32);
const clock = { now: () => 1_700_000_000_000 };

async function freshStore(dir?: string): Promise<{ dir: string; files: FileStore }> {
  const folder = dir ?? (await mkdtemp(path.join(tmpdir(), 'igw-unit-files-')));
  if (dir === undefined) dirs.push(folder);
  const files = await FileStore.open(folder, key, clock, randomIds);
  opened.push(files);
  return { dir: folder, files };
}

describe('FileStore', () => {
  it('create → get → openRead/readAll round-trips; the blob is sealed, 0600', async () => {
    const { dir, files } = await freshStore();
    const data = Buffer.from('line one\nline two\n'.repeat(10_000));
    const record = await files.create('acct', { filename: 'in.jsonl', purpose: 'batch' }, Readable.from([data.subarray(0, 1000), data.subarray(1000)]));
    expect(record).toMatchObject({ account: 'acct', filename: 'in.jsonl', purpose: 'batch', bytes: data.length, created_at: 1_700_000_000 });
    expect(await files.get('acct', record.id)).toEqual(record);
    expect((await files.readAll(record)).equals(data)).toBe(true);
    const blob = await readFile(path.join(dir, 'files', record.id));
    expect(blob.includes(Buffer.from('line one'))).toBe(false);
    expect((await stat(path.join(dir, 'files', record.id))).mode & 0o777).toBe(0o600);
  });

  it('readAll reads a file over 1 MB as a stream and a small one whole: both round-trip, both refuse a flipped bit', async () => {
    const { dir, files } = await freshStore();
    for (const size of [300, 1024 * 1024, 1024 * 1024 + 1, 3 * 1024 * 1024]) {
      const data = randomBytes(size);
      const record = await files.create('acct', { filename: 'x.bin', purpose: 'assistants' }, Readable.from([data]));
      expect((await files.readAll(record)).equals(data)).toBe(true);
      const blobPath = path.join(dir, 'files', record.id);
      const blob = await readFile(blobPath);
      blob[blob.length - 20]! ^= 1;
      await writeFile(blobPath, blob);
      await expect(files.readAll(record)).rejects.toThrow(SealedDataError);
    }
  });

  it('keeps files apart per account', async () => {
    const { files } = await freshStore();
    const record = await files.create('a', { filename: 'x', purpose: 'user_data' }, Readable.from([Buffer.from('x')]));
    expect(await files.get('b', record.id)).toBeUndefined();
    expect((await files.list('b')).data).toEqual([]);
    expect(await files.delete('b', record.id)).toBe(false);
    expect(await files.get('a', record.id)).toBeDefined();
  });

  it('createFromStream writes batch_output files; create refuses that purpose', async () => {
    const { files } = await freshStore();
    const output = await files.createFromStream('a', { filename: 'batch_x_output.jsonl', purpose: 'batch_output' }, Readable.from(['{"a":1}\n']));
    expect(output.purpose).toBe('batch_output');
    await expect(files.create('a', { filename: 'x', purpose: 'batch_output' as 'batch' }, Readable.from(['x']))).rejects.toThrow(TypeError);
  });

  it('refuses a file over maxBytes while streaming and leaves nothing behind', async () => {
    const { dir, files } = await freshStore();
    async function* endless() {
      for (let index = 0; index < 1000; index += 1) yield Buffer.alloc(1024);
    }
    const error = await rejection(files.create('a', { filename: 'big', purpose: 'batch' }, Readable.from(endless()), { maxBytes: 10_000 }));
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('VALIDATION_4013');
    expect(await readdir(path.join(dir, 'files'))).toEqual([]);
    expect((await files.list('a')).data).toEqual([]);
  });

  it('checks the announced size', async () => {
    const { dir, files } = await freshStore();
    await expect(files.create('a', { filename: 'x', purpose: 'batch', bytes: 5 }, Readable.from(['abc']))).rejects.toThrow(/expected 5 bytes/);
    expect(await readdir(path.join(dir, 'files'))).toEqual([]);
  });

  it('reading a tampered blob fails instead of returning altered bytes', async () => {
    const { dir, files } = await freshStore();
    const record = await files.create('a', { filename: 'x', purpose: 'batch' }, Readable.from([randomBytes(200_000)]));
    const blobPath = path.join(dir, 'files', record.id);
    const blob = await readFile(blobPath);
    blob[100_000]! ^= 1;
    await writeFile(blobPath, blob);
    await expect(files.readAll(record)).rejects.toThrow(SealedDataError);
  });

  it('a blob moved under another id does not open (the id is bound as AAD)', async () => {
    const { dir, files } = await freshStore();
    const first = await files.create('a', { filename: 'one', purpose: 'batch' }, Readable.from(['one']));
    const second = await files.create('a', { filename: 'two', purpose: 'batch' }, Readable.from(['two']));
    await writeFile(path.join(dir, 'files', second.id), await readFile(path.join(dir, 'files', first.id)));
    await expect(files.readAll(second)).rejects.toThrow(SealedDataError);
  });

  it('survives a reopen; orphan blobs and partial writes are removed at open', async () => {
    const { dir, files } = await freshStore();
    const record = await files.create('a', { filename: 'keep', purpose: 'assistants' }, Readable.from(['kept']));
    await writeFile(path.join(dir, 'files', 'file-orphan'), 'x');
    await writeFile(path.join(dir, 'files', `${record.id}.part`), 'x');
    const reopened = (await freshStore(dir)).files;
    expect(await readdir(path.join(dir, 'files'))).toEqual([record.id]);
    expect((await reopened.readAll((await reopened.get('a', record.id))!)).toString()).toBe('kept');
  });

  it('an upload appends one journal line; files.json is never rewritten per file (DESIGN §4)', async () => {
    const { dir, files } = await freshStore();
    for (let index = 0; index < 20; index += 1) await files.create('a', { filename: `f${index}`, purpose: 'assistants' }, Readable.from(['x']));
    const journal = (await readFile(path.join(dir, 'files.jsonl'), 'utf8')).split('\n').filter((line) => line !== '');
    expect(journal).toHaveLength(20);
    await expect(stat(path.join(dir, 'files.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    const first = (await files.list('a', { order: 'asc' })).data[0]!;
    expect(await files.delete('a', first.id)).toBe(true);
    const reopened = (await freshStore(dir)).files;
    expect((await reopened.list('a')).data).toHaveLength(19);
  });

  it('opens files.json written in the older single-document format', async () => {
    const { dir, files } = await freshStore();
    const record = await files.create('a', { filename: 'old.txt', purpose: 'assistants' }, Readable.from(['old bytes']));
    // Rewrite the data dir as the previous igw left it: all records in files.json, no journal.
    await writeFile(path.join(dir, 'files.json'), JSON.stringify({ files: [record] }, null, 2));
    await rm(path.join(dir, 'files.jsonl'));
    const reopened = (await freshStore(dir)).files;
    expect(await reopened.get('a', record.id)).toEqual(record);
    expect((await reopened.readAll(record)).toString()).toBe('old bytes');
    const added = await reopened.create('a', { filename: 'new.txt', purpose: 'assistants' }, Readable.from(['new']));
    expect((await (await freshStore(dir)).files.list('a', { order: 'asc' })).data.map((file) => file.id)).toEqual([record.id, added.id]);
  });

  it('delete removes record and bytes', async () => {
    const { dir, files } = await freshStore();
    const record = await files.create('a', { filename: 'x', purpose: 'batch' }, Readable.from(['x']));
    expect(await files.delete('a', record.id)).toBe(true);
    expect(await files.get('a', record.id)).toBeUndefined();
    expect(await readdir(path.join(dir, 'files'))).toEqual([]);
  });

  it('a small upload stored sealed is read back once from memory (checked like the disk copy), then from disk', async () => {
    const { dir, files } = await freshStore();
    const plain = Buffer.from('a small note for ingestion');
    const prepared = files.prepare();
    const parts: Buffer[] = [];
    for await (const part of Readable.from([plain]).pipe(prepared.sealer())) parts.push(part as Buffer);
    const record = await files.storeSealed('acct', prepared.id, { filename: 'note.txt', purpose: 'assistants', bytes: plain.length }, Buffer.concat(parts));
    const onDisk = path.join(dir, 'files', record.id);
    const copy = await readFile(onDisk);
    await rm(onDisk);
    // The first read needs no disk: the bytes on disk are gone.
    expect((await files.readAll(record)).equals(plain)).toBe(true);
    // Given out once: the next read goes to the disk.
    expect(((await rejection(files.readAll(record))) as NodeJS.ErrnoException).code).toBe('ENOENT');
    await writeFile(onDisk, copy);
    expect((await files.readAll(record)).equals(plain)).toBe(true);
  });
});
