import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The files `npm pack` puts in the package (what a registry install gets), without running the build. */
async function packedFiles(): Promise<Set<string>> {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const { stdout } = await execa(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root });
  const [pack] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
  return new Set(pack!.files.map((file) => file.path));
}

/** A script and, recursively, the files its relative imports name (ESM `from './x.mjs'`). */
function withRelativeImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const source = readFileSync(path.join(root, file), 'utf8');
  for (const [, specifier] of source.matchAll(/\bfrom\s+'(\.{1,2}\/[^']+)'/g)) {
    withRelativeImports(path.posix.join(path.posix.dirname(file), specifier!), seen);
  }
  return seen;
}

/**
 * A registry install gets only package.json's `files`, and npm runs `postinstall` there: a script
 * it names that the package lacks fails the whole `npm install` ("Cannot find module").
 */
describe('the published package', () => {
  it('holds every script its install hooks run, with what they import', async () => {
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const packed = await packedFiles();
    const hooks = ['preinstall', 'install', 'postinstall'].map((hook) => manifest.scripts[hook]).filter((command) => command !== undefined);
    expect(hooks.length).toBeGreaterThan(0);
    for (const command of hooks) {
      const script = /^node\s+(\S+)/.exec(command!)?.[1];
      expect(script, command).toBeDefined();
      for (const file of withRelativeImports(script!)) expect(packed.has(file), `${file} (run by "${command}") is not in the package`).toBe(true);
    }
  }, 60_000);

  it('holds the launcher and what it loads', async () => {
    const packed = await packedFiles();
    expect(packed.has('bin/igw.js')).toBe(true);
    expect([...packed].some((file) => file.startsWith('dist/'))).toBe(true);
  }, 60_000);
});
