// Makes `npx igw` work inside this checkout: npm links the bins of dependencies into
// node_modules/.bin, but never the project's own, and npx would otherwise look the name up
// on the registry. Runs from `prepare`, after the build.
import { mkdir, readlink, symlink, unlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const binFolder = path.join(root, 'node_modules', '.bin');
const link = path.join(binFolder, 'igw');
const target = path.relative(binFolder, path.join(root, 'bin', 'igw.js'));

await mkdir(binFolder, { recursive: true });
const current = await readlink(link).catch(() => null);
if (current !== target) {
  if (current !== null) await unlink(link);
  await symlink(target, link);
}
