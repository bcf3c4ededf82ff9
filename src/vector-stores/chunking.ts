import type { StaticChunking, StoreChunking } from './records.js';

// INTERIM (not to land): replaced by src/chunking's resolveChunkingStrategy when it lands.
const AUTO: StaticChunking = { type: 'static', static: { max_chunk_size_tokens: 800, chunk_overlap_tokens: 400 } };

export function storeChunking(input: unknown): StoreChunking | null {
  if (input === undefined) return null;
  return input as StoreChunking;
}

export function fileChunking(input: unknown, storeDefault: StoreChunking | null): StaticChunking {
  if (input === undefined) return storeDefault?.type === 'static' ? storeDefault : AUTO;
  return input as StaticChunking;
}
