import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../helpers/recorded.js';

/**
 * The real sample documents in `../shared/fixtures/documents/` (see its README). Not part of
 * the repository: suites skip with a notice when the folder is absent.
 */
export const documentsRoot = path.resolve(repoRoot, '../shared/fixtures/documents');
export const documentsAvailable = existsSync(documentsRoot);

export function noticeDocumentsMissing(suite: string): void {
  if (!documentsAvailable) console.warn(`[${suite}] skipped: sample documents not found at ${documentsRoot}`);
}

export function readDocument(relPath: string): Buffer {
  return readFileSync(path.join(documentsRoot, relPath));
}
