// Real text for the ANN benches (ann-recall.mjs, ann-fused.mjs): local-embed's vectors of the
// synthetic notes bench/ingest.mjs sends are near-isotropic, the worst case for a graph index,
// while real text clusters by topic.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

/**
 * Every file under `folder` (gzipped ones unpacked: /usr/share/man is a large English corpus on
 * most Linux machines) with markup dropped (HTML tags, troff requests and escapes), cut into
 * consecutive 60-word chunks, file after file, up to `wanted`: neighbouring chunks share a topic.
 */
export function folderChunks(folder, wanted) {
  const chunks = [];
  const files = readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name))
    .sort();
  for (const file of files) {
    if (chunks.length >= wanted) break;
    let text;
    try {
      const bytes = readFileSync(file);
      text = (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
    } catch {
      continue; // unreadable (a dangling link, a bad archive): skipped
    }
    const words = text
      .replace(/^\.[^\n]*$/gm, ' ')
      .replace(/<[^>]*>|\\f.|\\\(..|\\[-&e]|\\/g, ' ')
      .split(/\s+/)
      .filter((token) => /[a-z]/i.test(token));
    for (let start = 0; start + 20 <= words.length && chunks.length < wanted; start += 60) chunks.push(words.slice(start, start + 60).join(' '));
  }
  return chunks;
}

/** Three words (of four letters or more) of a random chunk: the shape of bench/ingest.mjs's queries. */
export function chunkQuery(chunks, random) {
  const words = chunks[Math.floor(random() * chunks.length)].split(' ').filter((token) => /^[a-z]{4,}$/i.test(token));
  return Array.from({ length: 3 }, () => words[Math.floor(random() * words.length)] ?? 'manual').join(' ');
}
