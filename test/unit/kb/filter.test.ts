import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPathFilter } from '../../../src/kb/filter.js';
import { scanFolder } from '../../../src/kb/scan.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'igw-kb-filter-'));
  for (const file of ['a.md', 'b.log', 'drafts/c.md', 'docs/d.md', 'docs/e.tmp', 'docs/keep.log', '.git/config', 'build/out.md']) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), file);
  }
  await writeFile(path.join(root, '.gitignore'), '*.log\nbuild/\n');
  await writeFile(path.join(root, 'docs', '.gitignore'), '*.tmp\n!keep.log\n');
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('folder filter and scan', () => {
  it.each<{ include?: string[]; exclude?: string[]; files: string[] }>([
    { files: ['a.md', 'docs/d.md', 'drafts/c.md'] },
    { exclude: ['drafts/**'], files: ['a.md', 'docs/d.md'] },
    { exclude: ['drafts'], files: ['a.md', 'docs/d.md'] },
    { include: ['docs/**'], files: ['docs/d.md'] },
    { include: ['**/*.md'], exclude: ['a.md'], files: ['docs/d.md', 'drafts/c.md'] },
  ])('include $include exclude $exclude', async ({ include, exclude, files }) => {
    const filter = createPathFilter(root, { ...(include === undefined ? {} : { include }), ...(exclude === undefined ? {} : { exclude }) });
    expect((await scanFolder(root, filter)).map((file) => file.path).sort()).toEqual(files);
  });
});
