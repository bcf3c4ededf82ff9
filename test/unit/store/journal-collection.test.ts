import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalCollection } from '../../../src/store/journal-collection.js';

interface Note {
  id: string;
  text: string;
}

const dirs: string[] = [];
/** Collections left open on purpose (a reopen stands for a restart after SIGKILL): closed at the end, so no journal handle is left to the garbage collector. */
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const collection of opened.splice(0)) await collection.close().catch(() => undefined);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'igw-unit-journal-'));
  dirs.push(dir);
  return dir;
}

async function open(dir: string) {
  const collection = await JournalCollection.open<Note, { counter: number }>(dir, 'notes', {
    key: (note) => note.id,
    meta: { counter: 0 },
    legacy: (document) => ({ records: (document as { notes: Note[] }).notes, meta: { counter: 7 } }),
  });
  opened.push(collection);
  return collection;
}

async function lines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8')).split('\n').filter((line) => line !== '');
}

describe('JournalCollection', () => {
  it('appends one journal line per change and never rewrites the snapshot for it', async () => {
    const dir = await folder();
    const notes = await open(dir);
    await notes.put({ id: 'a', text: 'first' });
    await notes.put({ id: 'b', text: 'second' }, { id: 'c', text: 'third' });
    await notes.delete('b');
    await notes.setMeta({ counter: 2 });
    expect(await lines(path.join(dir, 'notes.jsonl'))).toHaveLength(5);
    await expect(stat(path.join(dir, 'notes.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    // No close(): as after a SIGKILL, everything acknowledged is replayed.
    const reopened = await open(dir);
    expect([...reopened.values()]).toEqual([{ id: 'a', text: 'first' }, { id: 'c', text: 'third' }]);
    expect(reopened.meta).toEqual({ counter: 2 });
  });

  it('keeps a changed record in its place', async () => {
    const dir = await folder();
    const notes = await open(dir);
    await notes.put({ id: 'a', text: '1' }, { id: 'b', text: '2' });
    await notes.put({ id: 'a', text: 'changed' });
    expect([...(await open(dir)).values()].map((note) => note.text)).toEqual(['changed', '2']);
  });

  it('skips a torn last line and appends cleanly after it', async () => {
    const dir = await folder();
    const notes = await open(dir);
    await notes.put({ id: 'a', text: 'kept' });
    await appendFile(path.join(dir, 'notes.jsonl'), '{"seq":2,"put":{"id":"b","te');
    const reopened = await open(dir);
    expect([...reopened.values()].map((note) => note.id)).toEqual(['a']);
    await reopened.put({ id: 'c', text: 'after the crash' });
    expect([...(await open(dir)).values()].map((note) => note.id)).toEqual(['a', 'c']);
  });

  it('compacts in the background without losing a change made meanwhile', async () => {
    const dir = await folder();
    const notes = await open(dir);
    const writes: Array<Promise<void>> = [];
    for (let index = 0; index < 5000; index += 1) writes.push(notes.put({ id: `n${index % 1500}`, text: `v${index}` }));
    await Promise.all(writes);
    await notes.delete('n3');
    await notes.close();
    const snapshot = JSON.parse(await readFile(path.join(dir, 'notes.json'), 'utf8'));
    expect(snapshot.format).toBe('igw-journal-snapshot');
    // The journal was cut: it holds far fewer lines than the 5001 changes.
    expect((await lines(path.join(dir, 'notes.jsonl'))).length).toBeLessThan(2500);
    const reopened = await open(dir);
    expect(reopened.size).toBe(1499);
    expect(reopened.get('n499')).toEqual({ id: 'n499', text: 'v4999' });
    expect(reopened.get('n1499')).toEqual({ id: 'n1499', text: 'v4499' });
    expect(reopened.get('n3')).toBeUndefined();
  });

  it('opens a collection written as one document before journals, and keeps it on the next compaction', async () => {
    const dir = await folder();
    await writeFile(path.join(dir, 'notes.json'), JSON.stringify({ notes: [{ id: 'old', text: 'from before' }] }));
    const notes = await open(dir);
    expect([...notes.values()]).toEqual([{ id: 'old', text: 'from before' }]);
    expect(notes.meta).toEqual({ counter: 7 });
    await notes.put({ id: 'new', text: 'after' });
    const reopened = await open(dir);
    expect([...reopened.values()].map((note) => note.id)).toEqual(['old', 'new']);
  });
});
