import { GatewayError } from '../errors/gateway-error.js';
import type { ChunkOptions } from './chunk-text.js';

/**
 * `chunking_strategy` of vector store create / attach / file batch bodies (spec "Vector
 * stores"; OpenAI's shape): `{type: 'auto'}` or `{type: 'static', static: {max_chunk_size_tokens,
 * chunk_overlap_tokens}}`.
 */
export type ChunkingStrategy =
  | { type: 'auto' }
  | { type: 'static'; static: { max_chunk_size_tokens: number; chunk_overlap_tokens: number } };

/** What `auto` means (OpenAI's documented default): 800-token chunks overlapping by 400. */
export const AUTO_MAX_CHUNK_TOKENS = 800;
export const AUTO_CHUNK_OVERLAP_TOKENS = 400;
/** Bounds of `static.max_chunk_size_tokens`; the overlap may be at most half of it. */
export const MIN_CHUNK_TOKENS = 100;
export const MAX_CHUNK_TOKENS = 4096;

const FIELD = 'chunking_strategy';

/**
 * Validates a client's `chunking_strategy` and returns it normalized. Absent (`undefined` or
 * `null`) gives `fallback` (the store's strategy when a file is attached), else `auto`.
 * Problems are 400s naming the field, like every request validation (endpoints/validation/
 * parse.ts): a missing field is VALIDATION_4002, a wrong type, value or unknown key is
 * VALIDATION_4005.
 */
export function resolveChunkingStrategy(input: unknown, fallback?: ChunkingStrategy): ChunkingStrategy {
  if (input === undefined || input === null) return fallback ?? { type: 'auto' };
  const strategy = objectAt(input, FIELD);
  const type = strategy.type;
  if (type === undefined) throw missing(`${FIELD}.type`);
  if (type === 'auto') {
    onlyKeys(strategy, ['type'], FIELD);
    return { type: 'auto' };
  }
  if (type !== 'static') throw invalid(`${FIELD}.type`, `must be "auto" or "static" (got ${describe(type)})`);
  onlyKeys(strategy, ['type', 'static'], FIELD);
  if (strategy.static === undefined) throw missing(`${FIELD}.static`);
  const config = objectAt(strategy.static, `${FIELD}.static`);
  onlyKeys(config, ['max_chunk_size_tokens', 'chunk_overlap_tokens'], `${FIELD}.static`);

  const maxField = `${FIELD}.static.max_chunk_size_tokens`;
  const overlapField = `${FIELD}.static.chunk_overlap_tokens`;
  const max = integerAt(config.max_chunk_size_tokens, maxField);
  if (max < MIN_CHUNK_TOKENS || max > MAX_CHUNK_TOKENS) {
    throw invalid(maxField, `must be from ${MIN_CHUNK_TOKENS} to ${MAX_CHUNK_TOKENS} (got ${max})`);
  }
  const overlap = integerAt(config.chunk_overlap_tokens, overlapField);
  if (overlap < 0) throw invalid(overlapField, `must not be negative (got ${overlap})`);
  if (overlap > max / 2) {
    throw invalid(overlapField, `must not exceed half of max_chunk_size_tokens (${Math.floor(max / 2)} for ${max}; got ${overlap})`);
  }
  return { type: 'static', static: { max_chunk_size_tokens: max, chunk_overlap_tokens: overlap } };
}

/** The chunker's options for a (resolved) strategy. */
export function chunkOptionsFor(strategy: ChunkingStrategy): ChunkOptions {
  if (strategy.type === 'auto') return { maxTokens: AUTO_MAX_CHUNK_TOKENS, overlapTokens: AUTO_CHUNK_OVERLAP_TOKENS };
  return { maxTokens: strategy.static.max_chunk_size_tokens, overlapTokens: strategy.static.chunk_overlap_tokens };
}

/**
 * The strategy as OpenAI reports it on a vector store file: always the concrete `static` values
 * the file was chunked with (an `auto` request reads back as static 800 / 400).
 */
export function reportedChunkingStrategy(strategy: ChunkingStrategy): Extract<ChunkingStrategy, { type: 'static' }> {
  const { maxTokens, overlapTokens } = chunkOptionsFor(strategy);
  return { type: 'static', static: { max_chunk_size_tokens: maxTokens, chunk_overlap_tokens: overlapTokens } };
}

function objectAt(value: unknown, field: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid(field, `must be an object (got ${describe(value)})`);
  return value as Record<string, unknown>;
}

function integerAt(value: unknown, field: string): number {
  if (value === undefined) throw missing(field);
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(field, `must be an integer (got ${describe(value)})`);
  return value;
}

function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], field: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw new GatewayError('VALIDATION_4005', `Unknown parameter "${field}.${key}".`, { field: `${field}.${key}` });
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}

function missing(field: string): GatewayError {
  return new GatewayError('VALIDATION_4002', `Missing required field "${field}".`, { field });
}

function invalid(field: string, problem: string): GatewayError {
  return new GatewayError('VALIDATION_4005', `Invalid value for "${field}": ${problem}.`, { field });
}
