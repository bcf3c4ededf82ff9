import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Access to the real provider captures in `fixtures/recorded/` (see its README for provenance and
 * licenses). They are part of the repository, so every suite runs in a bare clone.
 */

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const recordedRoot = path.resolve(repoRoot, 'fixtures/recorded');

/** A recorded file as text; `relPath` is relative to the recorded folder (absolute paths pass through). */
export function readRecorded(relPath: string): string {
  return readFileSync(path.resolve(recordedRoot, relPath), 'utf8');
}

export function readRecordedJson<T = any>(relPath: string): T {
  return JSON.parse(readRecorded(relPath)) as T;
}

/**
 * File names (relative to the recorded folder) in `folder` ending with `suffix`, sorted. Throws
 * when nothing matches, so a moved folder fails the suite instead of generating zero tests.
 */
export function listRecorded(folder: string, suffix: string): string[] {
  const directory = path.resolve(recordedRoot, folder);
  const found = existsSync(directory)
    ? readdirSync(directory)
        .filter((name) => name.endsWith(suffix) && !name.endsWith('.request.json'))
        .sort()
        .map((name) => `${folder}/${name}`)
    : [];
  if (found.length === 0) throw new Error(`no recorded ${suffix} files in ${directory}`);
  return found;
}

/** The `data:` payloads of a `.chunks.jsonl` recording (one per non-empty line). */
export function payloadsFromChunksFile(relPath: string): string[] {
  return readRecorded(relPath)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}

/**
 * A `.chunks.jsonl` recording replayed as an OpenAI-style event stream: `data: <line>\n\n` per
 * line, then `data: [DONE]\n\n` (the recording format drops it; see the README).
 */
export function sseFromChunksFile(relPath: string, options: { done?: boolean } = {}): string {
  const frames = payloadsFromChunksFile(relPath).map((payload) => `data: ${payload}\n\n`);
  if (options.done !== false) frames.push('data: [DONE]\n\n');
  return frames.join('');
}
