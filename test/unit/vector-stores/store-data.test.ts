import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADD_SLICE_POINTS } from '../../../src/vector-stores/hnsw-index.js';
import { keySealer } from '../../../src/vector-stores/sealer.js';
import { seededVector } from '../../helpers/seeded-vector.js';
import { EXACT_SEARCH_LIMIT, StoreData } from '../../../src/vector-stores/store-data.js';

const DIMENSIONS = 8;
const sealer = keySealer(randomBytes(32));

function vector(seed: number): number[] {
  return seededVector(seed, DIMENSIONS);
}

function chunks(prefix: string, count: number) {
  return Array.from({ length: count }, (_, index) => ({ text: `${prefix} chunk ${index}`, tokens: 3 }));
}

describe('StoreData', () => {
  let folder: string;
  const open = (options: { snapshotDelayMs?: number } = { snapshotDelayMs: 3_600_000 }) => StoreData.open('store-1', folder, sealer, options);

  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'igw-store-data-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('finds committed chunks, forgets removed files, and reports usage', async () => {
    const data = await open();
    await data.commitFile('file-a', chunks('alpha', 3), [vector(1), vector(2), vector(3)]);
    await data.commitFile('file-b', chunks('beta', 2), [vector(4), vector(5)]);
    const [best] = await data.search(vector(4), 1);
    expect(best).toMatchObject({ fileId: 'file-b', chunkIndex: 0, text: 'beta chunk 0' });
    expect(best!.score).toBeCloseTo(1, 5);
    expect(data.usageBytes('file-a')).toBe(3 * Buffer.byteLength('alpha chunk 0') + 3 * DIMENSIONS * 4);
    await data.removeFile('file-b');
    const hits = await data.search(vector(4), 10);
    expect(hits.map((hit) => hit.fileId)).toEqual(['file-a', 'file-a', 'file-a']);
    await data.close();
  });

  it('names each commit of a file with a fresh 12-hex suffix: 700 recommits (past one pool of random bytes) leave one text and one vector segment', async () => {
    const data = await open();
    const seen = new Set<string>();
    for (let commit = 0; commit < 700; commit += 1) {
      await data.commitFile('file-a', chunks(`v${commit}`, 1), [vector(commit)]);
      const names = await readdir(path.join(folder, 'chunks'));
      expect(names.length).toBe(2);
      const suffix = names[0]!.split('.')[1]!;
      expect(suffix).toMatch(/^[0-9a-f]{12}$/);
      expect(seen.has(suffix)).toBe(false);
      seen.add(suffix);
    }
    expect((await data.search(vector(699), 1))[0]).toMatchObject({ fileId: 'file-a', text: 'v699 chunk 0' });
    await data.close();
  });

  it('keeps chunk text and vectors sealed on disk', async () => {
    const data = await open();
    await data.commitFile('file-a', [{ text: 'a secret recipe for pancakes', tokens: 5 }], [vector(1)]);
    await data.close();
    for (const name of await readdir(path.join(folder, 'chunks'))) {
      expect((await readFile(path.join(folder, 'chunks', name))).includes(Buffer.from('pancakes'))).toBe(false);
    }
    for (const name of ['manifest.jsonl', 'index.hnsw', ...(await readdir(path.join(folder, 'chunks'))).map((chunk) => path.join('chunks', chunk))]) {
      expect((await stat(path.join(folder, name))).mode & 0o777, name).toBe(0o600);
    }
  });

  it('recovers committed files after a crash before the index snapshot', async () => {
    const crashed = await open();
    await crashed.commitFile('file-a', chunks('alpha', 2), [vector(1), vector(2)]);
    await crashed.commitFile('file-b', chunks('beta', 2), [vector(3), vector(4)]);
    // No close(): the process died with the snapshot still pending.
    const reopened = await open();
    expect(reopened.liveChunks).toBe(4);
    expect((await reopened.search(vector(3), 1))[0]).toMatchObject({ fileId: 'file-b', chunkIndex: 0 });
    await reopened.close();
  });

  it('a commit appends to the manifest journal instead of rewriting a manifest of every file (DESIGN §4)', async () => {
    const data = await open();
    for (let index = 0; index < 30; index += 1) await data.commitFile(`file-${index}`, chunks(`doc${index}`, 1), [vector(index)]);
    await data.removeFile('file-3');
    await expect(stat(path.join(folder, 'manifest.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    const journal = (await readFile(path.join(folder, 'manifest.jsonl'), 'utf8')).split('\n').filter((line) => line !== '');
    // One entry and one label counter per commit, one line per removal.
    expect(journal).toHaveLength(61);
    await data.close();
    const reopened = await open();
    expect(reopened.liveChunks).toBe(29);
    expect(reopened.hasFile('file-3')).toBe(false);
    expect((await reopened.search(vector(7), 1))[0]).toMatchObject({ fileId: 'file-7' });
    await reopened.commitFile('file-new', chunks('new', 1), [vector(99)]);
    expect((await reopened.search(vector(99), 1))[0]).toMatchObject({ fileId: 'file-new' });
    await reopened.close();
  });

  it('opens a store whose manifest.json is in the older single-document format', async () => {
    const data = await open();
    await data.commitFile('file-a', chunks('alpha', 2), [vector(1), vector(2)]);
    await data.commitFile('file-b', chunks('beta', 1), [vector(3)]);
    await data.close();
    // As the previous igw left it: every committed file in one manifest.json, no journal.
    await writeFile(
      path.join(folder, 'manifest.json'),
      JSON.stringify({ dimensions: DIMENSIONS, next_label: 3, files: { 'file-a': { start: 0, count: 2, usage_bytes: 10 }, 'file-b': { start: 2, count: 1, usage_bytes: 5 } } }),
    );
    await rm(path.join(folder, 'manifest.jsonl'));
    // ... and its segments named after the file id alone.
    for (const name of await readdir(path.join(folder, 'chunks'))) {
      await rename(path.join(folder, 'chunks', name), path.join(folder, 'chunks', name.replace(/\.[0-9a-f]+\.(text|vec)$/, '.$1')));
    }
    expect(await StoreData.committedFiles(folder)).toEqual(new Set(['file-a', 'file-b']));
    const reopened = await open();
    expect(reopened.liveChunks).toBe(3);
    expect(reopened.usageBytes('file-b')).toBe(5);
    expect((await reopened.search(vector(3), 1))[0]).toMatchObject({ fileId: 'file-b', text: 'beta chunk 0' });
    // New labels continue after the old ones.
    await reopened.commitFile('file-c', chunks('gamma', 1), [vector(4)]);
    expect((await reopened.search(vector(4), 1))[0]).toMatchObject({ fileId: 'file-c' });
    expect((await reopened.search(vector(1), 1))[0]).toMatchObject({ fileId: 'file-a' });
    await reopened.close();
  });

  it('drops a removed file from an older snapshot after a crash', async () => {
    const first = await open();
    await first.commitFile('file-a', chunks('alpha', 2), [vector(1), vector(2)]);
    await first.commitFile('file-b', chunks('beta', 2), [vector(3), vector(4)]);
    await first.snapshot();
    await first.removeFile('file-b');
    await first.commitFile('file-c', chunks('gamma', 1), [vector(5)]);
    // Crash: the snapshot still holds file-b and lacks file-c.
    const reopened = await open();
    const hits = await reopened.search(vector(3), 10);
    expect(hits.map((hit) => hit.fileId).sort()).toEqual(['file-a', 'file-a', 'file-c']);
    expect(await reopened.chunks('file-b')).toEqual([]);
    await reopened.close();
    // And the repaired state was saved: a third open agrees.
    const third = await open();
    expect((await third.search(vector(5), 1))[0]).toMatchObject({ fileId: 'file-c' });
    await third.close();
  });

  it('answers selective filters exactly', async () => {
    const data = await open();
    for (let file = 0; file < 20; file += 1) {
      await data.commitFile(`file-${file}`, chunks(`f${file}`, 5), Array.from({ length: 5 }, (_, index) => vector(file * 5 + index + 10)));
    }
    const wanted = new Set(['file-3', 'file-17']);
    const query = vector(999);
    const hits = await data.search(query, 4, (fileId) => wanted.has(fileId));
    expect(hits).toHaveLength(4);
    expect(hits.every((hit) => wanted.has(hit.fileId))).toBe(true);
    // Exact: the same as scoring all ten candidates by hand.
    const norm = (values: number[]) => Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
    const cosine = (left: number[], right: number[]) => left.reduce((sum, value, index) => sum + value * right[index]!, 0) / (norm(left) * norm(right));
    const expected = [3, 17]
      .flatMap((file) => Array.from({ length: 5 }, (_, index) => ({ fileId: `file-${file}`, chunkIndex: index, score: cosine(query, vector(file * 5 + index + 10)) })))
      .sort((left, right) => right.score - left.score)
      .slice(0, 4);
    expect(hits.map((hit) => [hit.fileId, hit.chunkIndex])).toEqual(expected.map((hit) => [hit.fileId, hit.chunkIndex]));
    hits.forEach((hit, index) => expect(hit.score).toBeCloseTo(expected[index]!.score, 5));
    expect(EXACT_SEARCH_LIMIT).toBeGreaterThan(10);
    await data.close();
  });

  it('grows the index past its initial capacity (resizeIndex) with small commits', async () => {
    const data = await open();
    for (let file = 0; file < 30; file += 1) {
      await data.commitFile(`file-${file}`, chunks(`f${file}`, 50), Array.from({ length: 50 }, (_, index) => vector(file * 50 + index)));
    }
    expect(data.liveChunks).toBe(1500);
    expect((await data.search(vector(1234), 1))[0]).toMatchObject({ fileId: 'file-24', chunkIndex: 34 });
    await data.close();
  });

  it('adds a large file on the index thread, in several slices, and reloads it', async () => {
    const count = ADD_SLICE_POINTS * 8 + 10;
    const data = await open();
    await data.commitFile('small', chunks('small', 2), [vector(1), vector(2)]);
    await data.commitFile('big', chunks('big', count), Array.from({ length: count }, (_, index) => vector(index + 100)));
    expect(data.liveChunks).toBe(count + 2);
    expect((await data.search(vector(150), 1))[0]).toMatchObject({ fileId: 'big', chunkIndex: 50 });
    expect((await data.search(vector(2), 1))[0]).toMatchObject({ fileId: 'small', chunkIndex: 1 });
    await data.close();
    const reopened = await open();
    expect((await reopened.search(vector(150), 1))[0]).toMatchObject({ fileId: 'big', chunkIndex: 50 });
    await reopened.close();
  }, 60_000);

  it('answers the cosine of any live chunk from its vector copy, after commits and after a reopen', async () => {
    const unitOf = (values: readonly number[]) => {
      const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
      return Float32Array.from(values, (value) => value / norm);
    };
    const exact = (left: readonly number[], right: readonly number[]) => unitOf(left).reduce((sum, value, index) => sum + value * unitOf(right)[index]!, 0);
    const query = unitOf(vector(99));
    let data = await open();
    await data.commitFile('file-a', chunks('alpha', 3), [vector(1), vector(2), vector(3)]);
    await data.commitFile('file-b', chunks('beta', 2), [vector(4), vector(5)]);
    const labelB = data.labelOf('file-b', 1)!;
    expect(Math.abs((await data.cosineAt(query, labelB)) - exact(vector(5), vector(99)))).toBeLessThan(2e-3);
    await data.close();
    // Reopened: the copy fills from the loaded index in the background; before that a cosine asks the index thread for the point.
    data = await open();
    expect(Math.abs((await data.cosineAt(query, data.labelOf('file-a', 2)!)) - exact(vector(3), vector(99)))).toBeLessThan(2e-3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const [fileId, index, seed] of [['file-a', 0, 1], ['file-b', 0, 4], ['file-b', 1, 5]] as const) {
      expect(Math.abs((await data.cosineAt(query, data.labelOf(fileId, index)!)) - exact(vector(seed), vector(99)))).toBeLessThan(2e-3);
    }
    // The noise level is the mean cosine to the store's chunks (5 here, all sampled).
    const mean = [1, 2, 3, 4, 5].reduce((sum, seed) => sum + exact(vector(seed), vector(99)), 0) / 5;
    expect(await data.noiseLevel(query)).toBeCloseTo(mean, 2);
    await data.close();
  });

  it('reads chunk text from segments sealed whole (before the per-chunk layout) and from per-chunk ones', async () => {
    let data = await open();
    await data.commitFile('file-a', chunks('alpha', 3), [vector(1), vector(2), vector(3)]);
    await data.commitFile('file-b', chunks('beta', 2), [vector(4), vector(5)]);
    await data.close();
    // file-a's segment rewritten as an older version wrote it: the chunks as one sealed JSON array.
    const names = await readdir(path.join(folder, 'chunks'));
    const segmentA = names.find((name) => name.startsWith(Buffer.from('file-a').toString('base64url')) && name.endsWith('.text'))!;
    await writeFile(path.join(folder, 'chunks', segmentA), sealer.seal(Buffer.from(JSON.stringify(chunks('alpha', 3)), 'utf8'), 'vector_store:store-1:file-a:text'));
    data = await open();
    expect(await data.chunkText('file-a', 2)).toBe('alpha chunk 2');
    expect(await data.chunkText('file-b', 1)).toBe('beta chunk 1');
    expect(await data.chunks('file-a')).toEqual(chunks('alpha', 3));
    expect(await data.chunks('file-b')).toEqual(chunks('beta', 2));
    const [best] = await data.search(vector(5), 1);
    expect(best).toMatchObject({ fileId: 'file-b', chunkIndex: 1, text: 'beta chunk 1' });
    await data.close();
  });
});
