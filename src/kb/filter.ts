import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';

/**
 * Which paths of a synced folder belong in the store: `.gitignore` files (at any depth, each
 * relative to its own folder, as git reads them), then `--exclude` globs, then `--include` globs
 * (files only; none given = every file). `.git/`, `.gitignore` and `.igw*` are never synced. Paths are relative
 * to the folder with forward slashes; folders end in "/".
 */
export interface PathFilter {
  /** Whether a folder should be walked / watched at all. */
  folder(relative: string): boolean;
  /** Whether a file is synced. */
  file(relative: string): boolean;
  /** Reads the .gitignore of a folder (relative, "" = root) if it has one; call before its entries. */
  loadGitignore(relativeFolder: string): Promise<void>;
  /** Forgets a folder's rules (its .gitignore changed or went away). */
  forgetGitignore(relativeFolder: string): void;
}

const ALWAYS_SKIPPED = ['.git', '.gitignore'];

export function createPathFilter(root: string, options: { include?: readonly string[]; exclude?: readonly string[] } = {}): PathFilter {
  const include = options.include !== undefined && options.include.length > 0 ? picomatch([...options.include], { dot: true }) : null;
  const exclude = options.exclude !== undefined && options.exclude.length > 0 ? picomatch([...options.exclude], { dot: true }) : null;
  const gitignores = new Map<string, Ignore>();

  /** Every .gitignore from the root down to the entry's folder, each given the path relative to it. */
  function ignoredByGit(relative: string, isFolder: boolean): boolean {
    const parts = relative.split('/');
    for (let depth = 0; depth < parts.length; depth += 1) {
      const base = parts.slice(0, depth).join('/');
      const rules = gitignores.get(base);
      if (rules === undefined) continue;
      const rest = parts.slice(depth).join('/');
      if (rules.ignores(isFolder ? `${rest}/` : rest)) return true;
    }
    return false;
  }

  function skippedName(relative: string): boolean {
    const name = relative.slice(relative.lastIndexOf('/') + 1);
    return ALWAYS_SKIPPED.includes(name) || name.startsWith('.igw');
  }

  return {
    folder(relative) {
      if (relative === '') return true;
      if (skippedName(relative) || ignoredByGit(relative, true)) return false;
      // An excluded folder ("drafts/**" or "drafts") is not walked at all.
      return exclude === null || !(exclude(relative) || exclude(`${relative}/`));
    },
    file(relative) {
      if (skippedName(relative) || ignoredByGit(relative, false)) return false;
      if (exclude?.(relative) === true) return false;
      return include === null || include(relative);
    },
    async loadGitignore(relativeFolder) {
      try {
        const text = await readFile(path.join(root, relativeFolder, '.gitignore'), 'utf8');
        gitignores.set(relativeFolder, ignore().add(text));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
        gitignores.delete(relativeFolder);
      }
    },
    forgetGitignore(relativeFolder) {
      gitignores.delete(relativeFolder);
    },
  };
}
