import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChunkReader } from '../../../src/vector-stores/chunk-reader.js';
import { keySealer } from '../../../src/vector-stores/sealer.js';
import { encodeTextSegment } from '../../../src/vector-stores/text-segment.js';

const sealer = keySealer(randomBytes(32));
const aadOf = (file: number) => `vector_store:vs_1:file-${file}:text`;
const chunksOf = (file: number, count = 3) => Array.from({ length: count }, (_, index) => ({ text: `file ${file} chunk ${index}`, tokens: 4 }));

/** Descriptors this process holds open on files under the folder (Linux /proc). */
async function openUnder(folder: string): Promise<number> {
  const { readlink } = await import('node:fs/promises');
  let count = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target.startsWith(folder)) count += 1;
  }
  return count;
}

describe('ChunkReader', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'igw-chunk-reader-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('reads any chunk of per-chunk segments, concurrently, through at most 1,024 open files per reader', async () => {
    const reader = new ChunkReader();
    const files = 1100;
    for (let file = 0; file < files; file += 1) await writeFile(path.join(folder, `${file}.text`), encodeTextSegment(chunksOf(file), sealer, aadOf(file)));
    const asked = Array.from({ length: files * 3 }, (_, at) => ({ file: at % files, index: at % 3 }));
    const read = await Promise.all(asked.map(({ file, index }) => reader.read(path.join(folder, `${file}.text`), index, sealer, aadOf(file))));
    read.forEach((result, at) => expect(result).toEqual({ chunk: chunksOf(asked[at]!.file)[asked[at]!.index] }));
    expect(await reader.read(path.join(folder, '7.text'), 3, sealer, aadOf(7))).toEqual({ chunk: undefined });
    await new Promise((resolve) => setTimeout(resolve, 50)); // evicted handles close once their reads are done
    expect(await openUnder(folder)).toBeLessThanOrEqual(1024);
    reader.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await openUnder(folder)).toBe(0);
  });

  it('reads a segment whose offset table is longer than its first read', async () => {
    const reader = new ChunkReader();
    await writeFile(path.join(folder, 'long.text'), encodeTextSegment(chunksOf(5, 1500), sealer, aadOf(5)));
    for (const index of [0, 1020, 1499]) expect((await reader.read(path.join(folder, 'long.text'), index, sealer, aadOf(5))).chunk).toEqual(chunksOf(5, 1500)[index]);
    reader.close();
  });

  it('refuses a chunk sealed for another file, and reads an older whole-sealed segment entirely', async () => {
    const reader = new ChunkReader();
    await writeFile(path.join(folder, 'a.text'), encodeTextSegment(chunksOf(1), sealer, aadOf(1)));
    await expect(reader.read(path.join(folder, 'a.text'), 0, sealer, aadOf(2))).rejects.toThrow();
    await writeFile(path.join(folder, 'old.text'), sealer.seal(Buffer.from(JSON.stringify(chunksOf(3)), 'utf8'), aadOf(3)));
    expect(await reader.read(path.join(folder, 'old.text'), 1, sealer, aadOf(3))).toEqual({ chunk: chunksOf(3)[1], all: chunksOf(3) });
    reader.close();
  });

  it('forgets a removed segment: a later read of that path fails instead of answering from the old file', async () => {
    const reader = new ChunkReader();
    const target = path.join(folder, 'gone.text');
    await writeFile(target, encodeTextSegment(chunksOf(4), sealer, aadOf(4)));
    expect((await reader.read(target, 2, sealer, aadOf(4))).chunk).toEqual(chunksOf(4)[2]);
    reader.forget(target);
    await rm(target);
    await expect(reader.read(target, 2, sealer, aadOf(4))).rejects.toThrow(/ENOENT/);
    reader.close();
  });
});
