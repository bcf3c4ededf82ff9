import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalContents } from '../../../src/vector-stores/local-contents.js';
import { keySealer } from '../../../src/vector-stores/sealer.js';

const sealer = keySealer(randomBytes(32));

/**
 * Dropping a store's folder while something still writes into it by path (a snapshot, a late
 * catch-up's sequence file) made rm fail with ENOTEMPTY and DELETE /v1/vector_stores/{id} answer
 * 500 (found by the fuzz in the postgres project). A dropped store must also stay dropped.
 */
describe('LocalContents.drop', () => {
  let folder: string;
  let contents: LocalContents;
  beforeEach(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'igw-contents-'));
    contents = new LocalContents(folder, sealer);
  });
  afterEach(async () => {
    await contents.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('removes the folder while a writer keeps adding files to it', async () => {
    const storeId = randomUUID();
    const data = await contents.data(storeId);
    await data.commitFile('file-a', [{ text: 'alpha beta', tokens: 2 }], [[1, 0, 0]]);
    const storeFolder = contents.folderOf(storeId);
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        // Writes by path, as writeFileAtomic does; once the folder is gone they fail, as they should.
        await writeFile(path.join(storeFolder, `late-${written++}.tmp`), 'x'.repeat(4096)).catch(() => undefined);
      }
    })();
    for (let index = 0; index < 200; index++) await writeFile(path.join(storeFolder, `before-${index}.tmp`), 'x');
    await expect(contents.drop(storeId)).resolves.toBeUndefined();
    writing = false;
    await writer;
    expect(written).toBeGreaterThan(0);
    expect(await readdir(folder)).toEqual([]);
  });

  it('refuses to open a dropped store again, so a late reader cannot recreate its folder', async () => {
    const storeId = randomUUID();
    await contents.data(storeId);
    await contents.drop(storeId);
    await expect(contents.data(storeId)).rejects.toMatchObject({ code: 'RESOURCE_5420' });
    expect(await readdir(folder)).toEqual([]);
    // A second drop of the same store (its own change notice in team mode) is a no-op.
    await expect(contents.drop(storeId)).resolves.toBeUndefined();
  });

  it('sweeps removals a stop interrupted, and only those', async () => {
    const kept = randomUUID();
    await contents.data(kept);
    const interrupted = path.join(folder, `.removed-${randomUUID()}-${randomUUID()}`);
    await mkdir(path.join(interrupted, 'chunks'), { recursive: true });
    await writeFile(path.join(interrupted, 'chunks', 'segment'), 'sealed');
    await contents.sweepRemoved();
    expect(await readdir(folder)).toEqual([kept]);
  });
});
