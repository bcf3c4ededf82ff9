import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keySealer } from '../../../src/vector-stores/sealer.js';
import { StoreData } from '../../../src/vector-stores/store-data.js';

const sealer = keySealer(randomBytes(32));
const vector = (seed: number) => Array.from({ length: 4 }, (_, index) => Math.sin(seed * 7 + index));
const file = (...texts: string[]) => ({ chunks: texts.map((text) => ({ text, tokens: 5 })), vectors: texts.map((_, index) => vector(index + texts.length)) });

/** label → file#chunk of a lexical scoring, for comparisons that do not depend on label numbers. */
function lexicalHits(data: StoreData, query: string): string[] {
  return [...data.lexicalScores(query).labels].map((label) => {
    const chunk = data.chunkAt(label)!;
    return `${chunk.fileId}#${chunk.chunkIndex}`;
  }).sort();
}

describe('the lexical index of a store', () => {
  let folder: string;
  const open = () => StoreData.open('store-1', folder, sealer, { snapshotDelayMs: 3_600_000 });
  const indexFile = () => path.join(folder, 'lexical.idx');

  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'igw-lexical-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  async function seeded(): Promise<StoreData> {
    const data = await open();
    const pancakes = file('a secret recipe for pancakes', 'flip the pancakes twice');
    const court = file('the justices questioned the warden');
    await data.commitFile('file-a', pancakes.chunks, pancakes.vectors);
    await data.commitFile('file-b', court.chunks, court.vectors);
    return data;
  }

  it('is updated on commit and on removal', async () => {
    const data = await seeded();
    expect(lexicalHits(data, 'pancake')).toEqual(['file-a#0', 'file-a#1']);
    expect(lexicalHits(data, 'justice')).toEqual(['file-b#0']);
    await data.removeFile('file-a');
    expect(lexicalHits(data, 'pancake')).toEqual([]);
    await data.close();
  });

  it('is saved sealed with mode 0600 and read back at the next open', async () => {
    const data = await seeded();
    await data.close();
    const image = await readFile(indexFile());
    expect(image.includes(Buffer.from('pancak'))).toBe(false);
    expect(image.includes(Buffer.from('justic'))).toBe(false);
    expect((await stat(indexFile())).mode & 0o777).toBe(0o600);
    const reopened = await open();
    expect(lexicalHits(reopened, 'pancakes')).toEqual(['file-a#0', 'file-a#1']);
    await reopened.close();
    // Unchanged since it was read: not written again.
    expect((await readFile(indexFile())).equals(image)).toBe(true);
  });

  it('is rebuilt from the chunks when missing, torn or sealed for another store', async () => {
    const data = await seeded();
    await data.close();
    const expected = ['file-a#0', 'file-a#1'];
    await rm(indexFile());
    let reopened = await open();
    expect(lexicalHits(reopened, 'pancakes')).toEqual(expected);
    await reopened.close();
    await writeFile(indexFile(), (await readFile(indexFile())).subarray(0, 20));
    reopened = await open();
    expect(lexicalHits(reopened, 'pancakes')).toEqual(expected);
    await reopened.close();
    const other = await StoreData.open('store-2', await mkdtemp(path.join(tmpdir(), 'igw-lexical-other-')), sealer, { snapshotDelayMs: 3_600_000 });
    await other.commitFile('file-z', [{ text: 'zebra', tokens: 1 }], [vector(9)]);
    await other.close();
    await writeFile(indexFile(), await readFile(path.join(other.folder, 'lexical.idx')));
    await rm(other.folder, { recursive: true, force: true });
    reopened = await open();
    expect(lexicalHits(reopened, 'pancakes')).toEqual(expected);
    expect(lexicalHits(reopened, 'zebra')).toEqual([]);
    await reopened.close();
  });

  it('catches up with files committed or removed after its last save', async () => {
    const data = await seeded();
    await data.snapshot();
    await data.close();
    const stale = await readFile(indexFile());
    const data2 = await open();
    await data2.removeFile('file-b');
    const chess = file('chess puzzle mate in two');
    await data2.commitFile('file-c', chess.chunks, chess.vectors);
    await data2.close();
    // A crash before the snapshot: the image on disk is the old one.
    await writeFile(indexFile(), stale);
    const reopened = await open();
    expect(lexicalHits(reopened, 'justices')).toEqual([]);
    expect(lexicalHits(reopened, 'chess')).toEqual(['file-c#0']);
    expect(lexicalHits(reopened, 'pancakes')).toEqual(['file-a#0', 'file-a#1']);
    await reopened.close();
  });
});
