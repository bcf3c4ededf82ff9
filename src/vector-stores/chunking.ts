import { reportedChunkingStrategy, resolveChunkingStrategy } from '../chunking/index.js';
import type { StaticChunking, StoreChunking } from './records.js';

/** A store's default strategy from the create body (validated: static 100–4096, overlap ≤ half); null when none given. */
export function storeChunking(input: unknown): StoreChunking | null {
  return input === undefined || input === null ? null : resolveChunkingStrategy(input);
}

/** A file's strategy: its own, else the fallback (request or store), else auto; reported as the concrete static values. */
export function fileChunking(input: unknown, fallback: StoreChunking | null): StaticChunking {
  return reportedChunkingStrategy(resolveChunkingStrategy(input, fallback ?? undefined));
}
