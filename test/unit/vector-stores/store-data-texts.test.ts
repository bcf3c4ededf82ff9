import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keySealer } from '../../../src/vector-stores/sealer.js';
import { seededVector } from '../../helpers/seeded-vector.js';
import { StoreData } from '../../../src/vector-stores/store-data.js';
import { TextBudget } from '../../../src/vector-stores/text-budget.js';

const DIMENSIONS = 8;
const sealer = keySealer(randomBytes(32));

function vector(seed: number): number[] {
  return seededVector(seed, DIMENSIONS);
}

/** Texts with multi-byte characters, so byte and character offsets differ. */
function chunks(prefix: string, count: number) {
  return Array.from({ length: count }, (_, index) => ({ text: `${prefix} chunk ${index} — naïve café ✓`, tokens: 7 + index }));
}

/** Every text segment of the store deleted: a text served after this came from memory. */
async function deleteTextSegments(folder: string): Promise<void> {
  for (const name of await readdir(path.join(folder, 'chunks'))) if (name.endsWith('.text')) await rm(path.join(folder, 'chunks', name));
}

describe('StoreData chunk texts in memory', () => {
  let folder: string;
  const open = (budget: TextBudget) => StoreData.open('store-1', folder, sealer, { snapshotDelayMs: 3_600_000, textBudget: budget });

  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'igw-store-texts-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  /** file-a (alpha, 3 chunks) and file-b (beta, 2 chunks) committed, then the store closed. */
  async function commitTwoFilesAndClose(budget: TextBudget): Promise<void> {
    const data = await open(budget);
    await data.commitFile('file-a', chunks('alpha', 3), [vector(1), vector(2), vector(3)]);
    await data.commitFile('file-b', chunks('beta', 2), [vector(4), vector(5)]);
    await data.close();
  }

  it('fills an opened store from its segments in the background: searches and chunks() need no segment read afterwards', async () => {
    const budget = new TextBudget(1024 * 1024);
    await commitTwoFilesAndClose(budget);
    expect(budget.usedBytes).toBe(0);
    // Without the text image (as a store from before it): every text comes from the segments.
    await rm(path.join(folder, 'texts.img'));

    const data = await open(budget);
    await data.textsFilled;
    expect(budget.usedBytes).toBeGreaterThan(0);
    await deleteTextSegments(folder);
    const hits = await data.search(vector(5), 5);
    expect(hits).toHaveLength(5);
    for (const hit of hits) expect(hit.text).toBe(chunks(hit.fileId === 'file-a' ? 'alpha' : 'beta', 3)[hit.chunkIndex]!.text);
    expect(await data.chunkText('file-a', 2)).toBe('alpha chunk 2 — naïve café ✓');
    expect(await data.chunkText('file-a', 3)).toBe('');
    expect(await data.chunks('file-b')).toEqual(chunks('beta', 2));
    await data.close();
    expect(budget.usedBytes).toBe(0);
  });

  it('reopens from the sealed text image alone, and trusts none of its files that changed since', async () => {
    const budget = new TextBudget(1024 * 1024);
    await commitTwoFilesAndClose(budget);
    const image = path.join(folder, 'texts.img');
    expect((await stat(image)).mode & 0o777).toBe(0o600);
    expect((await readFile(image)).includes(Buffer.from('café'))).toBe(false);

    // The image alone is enough: no segment is read.
    await deleteTextSegments(folder);
    let data = await open(budget);
    await data.textsFilled;
    expect(await data.chunks('file-a')).toEqual(chunks('alpha', 3));
    expect((await data.search(vector(5), 1))[0]).toMatchObject({ fileId: 'file-b', chunkIndex: 1, text: 'beta chunk 1 — naïve café ✓' });

    // Changes after the image was written and no snapshot since (a crash): the image's file-a and
    // file-b are stale, the next open reads file-a's new version from its segment and drops file-b.
    await data.commitFile('file-a', chunks('gamma', 2), [vector(6), vector(7)]);
    await data.removeFile('file-b');
    const crashed = data;
    data = await open(new TextBudget(1024 * 1024));
    await data.textsFilled;
    expect(await data.chunks('file-a')).toEqual(chunks('gamma', 2));
    expect(await data.chunkText('file-b', 0)).toBe('');
    // The fill wrote a fresh image (before any snapshot): file-a's new texts, nothing of file-b.
    const written = sealer.unseal(await readFile(image), 'vector_store:store-1:texts');
    expect(written.includes(Buffer.from('gamma chunk 1'))).toBe(true);
    expect(written.includes(Buffer.from('beta chunk'))).toBe(false);
    expect(written.includes(Buffer.from('alpha chunk'))).toBe(false);
    await data.close();
    await crashed.close();
    await deleteTextSegments(folder);
    const fresh = new TextBudget(1024 * 1024);
    data = await open(fresh);
    await data.textsFilled;
    expect(await data.chunks('file-a')).toEqual(chunks('gamma', 2));
    await data.close();
    expect(fresh.usedBytes).toBe(0);
  });

  it('holds a commit without reading it back and frees a removed or replaced file', async () => {
    const budget = new TextBudget(1024 * 1024);
    const data = await open(budget);
    await data.commitFile('file-a', chunks('alpha', 3), [vector(1), vector(2), vector(3)]);
    const afterA = budget.usedBytes;
    await data.commitFile('file-b', chunks('beta', 2), [vector(4), vector(5)]);
    await deleteTextSegments(folder);
    expect(await data.chunkText('file-b', 1)).toBe('beta chunk 1 — naïve café ✓');
    expect((await data.search(vector(1), 1))[0]).toMatchObject({ fileId: 'file-a', chunkIndex: 0, text: 'alpha chunk 0 — naïve café ✓' });

    await data.removeFile('file-b');
    expect(budget.usedBytes).toBe(afterA);
    expect(await data.chunkText('file-b', 1)).toBe('');
    expect(await data.chunks('file-b')).toEqual([]);

    // A new version of file-a replaces its texts (the old ones are freed, not added to).
    await data.commitFile('file-a', chunks('gamma', 3), [vector(6), vector(7), vector(8)]);
    expect(budget.usedBytes).toBe(afterA);
    expect(await data.chunkText('file-a', 1)).toBe('gamma chunk 1 — naïve café ✓');
    await data.close();
    expect(budget.usedBytes).toBe(0);
  });

  it('falls back to segment reads when the budget is too small, and stays correct', async () => {
    const budget = new TextBudget(64);
    await commitTwoFilesAndClose(budget);
    const data = await open(budget);
    await data.textsFilled;
    expect(budget.usedBytes).toBe(0);
    expect((await data.search(vector(4), 1))[0]).toMatchObject({ fileId: 'file-b', chunkIndex: 0, text: 'beta chunk 0 — naïve café ✓' });
    expect(await data.chunks('file-a')).toEqual(chunks('alpha', 3));
    await data.removeFile('file-a');
    await data.commitFile('file-a', chunks('gamma', 1), [vector(6)]);
    expect(await data.chunkText('file-a', 0)).toBe('gamma chunk 0 — naïve café ✓');
    // Nothing was held (not even a fresh commit's), so a file not read yet is gone with its segment.
    await data.commitFile('file-c', chunks('delta', 1), [vector(7)]);
    expect(budget.usedBytes).toBe(0);
    await deleteTextSegments(folder);
    await expect(data.chunkText('file-c', 0)).rejects.toThrow();
    await data.close();
  });

  it('shares one budget between stores: what one store holds is not available to the next', async () => {
    const first = await open(new TextBudget(1024 * 1024));
    await first.commitFile('file-a', chunks('alpha', 3), [vector(1), vector(2), vector(3)]);
    await first.close();
    const probe = new TextBudget(1024 * 1024);
    const measured = await open(probe);
    await measured.textsFilled;
    const needed = probe.usedBytes;
    await measured.close();

    // Exactly enough for one copy: a second store opened on the same budget finds it spent.
    const budget = new TextBudget(needed);
    const one = await open(budget);
    await one.textsFilled;
    const otherFolder = await mkdtemp(path.join(tmpdir(), 'igw-store-texts-other-'));
    try {
      const other = await StoreData.open('store-2', otherFolder, sealer, { snapshotDelayMs: 3_600_000, textBudget: budget });
      await other.commitFile('file-x', chunks('xi', 1), [vector(9)]);
      await rm(path.join(otherFolder, 'chunks'), { recursive: true });
      await expect(other.chunkText('file-x', 0)).rejects.toThrow();
      await other.close();
    } finally {
      await rm(otherFolder, { recursive: true, force: true });
    }
    await one.close();
    expect(budget.usedBytes).toBe(0);
  });
});
