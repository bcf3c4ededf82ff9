import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../helpers/recorded.js';

/** The real sample documents in `fixtures/documents/` (see its README for provenance and licenses). */
export const documentsRoot = path.resolve(repoRoot, 'fixtures/documents');

export function readDocument(relPath: string): Buffer {
  return readFileSync(path.join(documentsRoot, relPath));
}
