import type { StaticChunking } from './records.js';

// INTERIM (not to land): replaced by src/chunking's resolveChunkingStrategy when it lands.
const AUTO: StaticChunking = { type: 'static', static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 } };

/** A store's default strategy from the create body: null = auto. */
export function storeChunking(input: unknown): StaticChunking | null {
  if (input === undefined) return null;
  return input as StaticChunking;
}

/** A file's strategy: its own, else the store's, else auto (800 / 400), normalized. */
export function fileChunking(input: unknown, storeDefault: StaticChunking | null): StaticChunking {
  if (input === undefined) return storeDefault ?? AUTO;
  return input as StaticChunking;
}
