import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
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

  it('fills an opened store in the background: searches and chunks() need no segment read afterwards', async () => {
    const budget = new TextBudget(1024 * 1024);
    let data = await open(budget);
    await data.commitFile('file-a', chunks('alpha', 3), [vector(1), vector(2), vector(3)]);
    await data.commitFile('file-b', chunks('beta', 2), [vector(4), vector(5)]);
    await data.close();
    expect(budget.usedBytes).toBe(0);

    data = await open(budget);
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
    let data = await open(budget);
    await data.commitFile('file-a', chunks('alpha', 3), [vector(1), vector(2), vector(3)]);
    await data.commitFile('file-b', chunks('beta', 2), [vector(4), vector(5)]);
    await data.close();
    data = await open(budget);
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
