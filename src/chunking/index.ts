export { chunkText, type Chunk, type ChunkOptions } from './chunk-text.js';
export {
  AUTO_CHUNK_OVERLAP_TOKENS,
  AUTO_MAX_CHUNK_TOKENS,
  chunkOptionsFor,
  MAX_CHUNK_TOKENS,
  MIN_CHUNK_TOKENS,
  reportedChunkingStrategy,
  resolveChunkingStrategy,
  type ChunkingStrategy,
} from './strategy.js';
