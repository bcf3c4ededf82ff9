import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../src/store/atomic-write.js';
import { DocumentCollection } from '../../../src/store/document-collection.js';

interface Batch {
  id: string;
  status: string;
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'igw-unit-document-'));
  dirs.push(dir);
  return dir;
}

const open = (dir: string) => DocumentCollection.open<Batch>(dir, 'batches', { key: (batch) => batch.id, field: 'batches' });

describe('DocumentCollection', () => {
  it('opens a data dir written before the port (the lowdb document) and keeps its format and other fields', async () => {
    const dir = await folder();
    // batches.json as igw wrote it through lowdb: pretty-printed, one array under the collection's name.
    await writeFile(path.join(dir, 'batches.json'), `${JSON.stringify({ batches: [{ id: 'b1', status: 'queued' }, { id: 'b2', status: 'in_progress' }], note: 'kept' }, null, 2)}\n`);
    const batches = await open(dir);
    expect([...batches.values()].map((batch) => batch.id)).toEqual(['b1', 'b2']);
    const first = batches.get('b1')!;
    first.status = 'completed';
    await batches.put(first);
    await batches.put({ id: 'b3', status: 'queued' });
    const text = await readFile(path.join(dir, 'batches.json'), 'utf8');
    expect(text).toBe(`${JSON.stringify({ batches: [{ id: 'b1', status: 'completed' }, { id: 'b2', status: 'in_progress' }, { id: 'b3', status: 'queued' }], note: 'kept' }, null, 2)}\n`);
  });

  it('writes nothing until the first change, then a 0600 file; deletes by key and keeps the order', async () => {
    const dir = await folder();
    const batches = await open(dir);
    expect(batches.size).toBe(0);
    await expect(stat(path.join(dir, 'batches.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    await batches.put({ id: 'a', status: '1' }, { id: 'b', status: '2' }, { id: 'c', status: '3' });
    await batches.delete('b', 'unknown');
    await batches.put({ id: 'a', status: 'changed' });
    expect((await stat(path.join(dir, 'batches.json'))).mode & 0o777).toBe(0o600);
    const reopened = await open(dir);
    expect([...reopened.values()]).toEqual([{ id: 'a', status: 'changed' }, { id: 'c', status: '3' }]);
    expect(reopened.has('b')).toBe(false);
  });

  it('lands concurrent changes in call order and leaves no temp file', async () => {
    const dir = await folder();
    const batches = await open(dir);
    await Promise.all(Array.from({ length: 20 }, (_, index) => batches.put({ id: 'x', status: String(index) })));
    await batches.close();
    expect((await open(dir)).get('x')).toEqual({ id: 'x', status: '19' });
    expect(await readdir(dir)).toEqual(['batches.json']);
    await expect(batches.put({ id: 'y', status: 'late' })).rejects.toThrow(/closed/);
  });
});

describe('writeFileAtomic', () => {
  it('replaces a file whole and removes its temp file when the rename fails', async () => {
    const dir = await folder();
    const target = path.join(dir, 'state.json');
    await writeFileAtomic(target, 'old');
    await writeFileAtomic(target, 'new');
    expect(await readFile(target, 'utf8')).toBe('new');
    // A directory in the way: the rename fails, the temp file must not stay behind.
    const blocked = path.join(dir, 'blocked');
    await mkdir(path.join(blocked, 'inside'), { recursive: true });
    await expect(writeFileAtomic(blocked, 'x')).rejects.toMatchObject({ code: expect.stringMatching(/EISDIR|ENOTEMPTY|EEXIST/) });
    expect((await readdir(dir)).sort()).toEqual(['blocked', 'state.json']);
  });

  it('writes parts in order without joining them', async () => {
    const dir = await folder();
    const target = path.join(dir, 'snapshot');
    await writeFileAtomic(target, [Buffer.from('one,'), Buffer.alloc(0), Buffer.from('two,'), Buffer.alloc(100_000, 'x')]);
    const bytes = await readFile(target);
    expect(bytes.subarray(0, 8).toString()).toBe('one,two,');
    expect(bytes.length).toBe(100_008);
    expect((await stat(target)).mode & 0o777).toBe(0o600);
  });
});
