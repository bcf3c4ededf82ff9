import { describe, expect, it } from 'vitest';
import { chunkOptionsFor, reportedChunkingStrategy, resolveChunkingStrategy, type ChunkingStrategy } from '../../../src/chunking/strategy.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';

const staticOf = (max: number, overlap: number): ChunkingStrategy => ({ type: 'static', static: { max_chunk_size_tokens: max, chunk_overlap_tokens: overlap } });

describe('resolveChunkingStrategy', () => {
  it.each<[string, unknown, ChunkingStrategy | undefined, ChunkingStrategy]>([
    ['absent → auto', undefined, undefined, { type: 'auto' }],
    ['null → auto', null, undefined, { type: 'auto' }],
    ['absent → the fallback (the store’s)', undefined, staticOf(300, 100), staticOf(300, 100)],
    ['auto', { type: 'auto' }, staticOf(300, 100), { type: 'auto' }],
    ['static, smallest', { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 0 } }, undefined, staticOf(100, 0)],
    ['static, largest with half overlap', { type: 'static', static: { max_chunk_size_tokens: 4096, chunk_overlap_tokens: 2048 } }, undefined, staticOf(4096, 2048)],
    ['static, odd size, overlap rounded down half', { type: 'static', static: { max_chunk_size_tokens: 101, chunk_overlap_tokens: 50 } }, undefined, staticOf(101, 50)],
  ])('%s', (_name, input, fallback, expected) => {
    expect(resolveChunkingStrategy(input, fallback)).toEqual(expected);
  });

  it.each<[string, unknown, 'VALIDATION_4002' | 'VALIDATION_4005', string]>([
    ['not an object', 'auto', 'VALIDATION_4005', 'chunking_strategy'],
    ['an array', [], 'VALIDATION_4005', 'chunking_strategy'],
    ['no type', {}, 'VALIDATION_4002', 'chunking_strategy.type'],
    ['unknown type', { type: 'semantic' }, 'VALIDATION_4005', 'chunking_strategy.type'],
    ['auto with extra keys', { type: 'auto', static: {} }, 'VALIDATION_4005', 'chunking_strategy.static'],
    ['static without its object', { type: 'static' }, 'VALIDATION_4002', 'chunking_strategy.static'],
    ['static not an object', { type: 'static', static: 5 }, 'VALIDATION_4005', 'chunking_strategy.static'],
    ['missing max', { type: 'static', static: { chunk_overlap_tokens: 0 } }, 'VALIDATION_4002', 'chunking_strategy.static.max_chunk_size_tokens'],
    ['missing overlap', { type: 'static', static: { max_chunk_size_tokens: 200 } }, 'VALIDATION_4002', 'chunking_strategy.static.chunk_overlap_tokens'],
    ['max below 100', { type: 'static', static: { max_chunk_size_tokens: 99, chunk_overlap_tokens: 0 } }, 'VALIDATION_4005', 'chunking_strategy.static.max_chunk_size_tokens'],
    ['max above 4096', { type: 'static', static: { max_chunk_size_tokens: 4097, chunk_overlap_tokens: 0 } }, 'VALIDATION_4005', 'chunking_strategy.static.max_chunk_size_tokens'],
    ['max not an integer', { type: 'static', static: { max_chunk_size_tokens: 200.5, chunk_overlap_tokens: 0 } }, 'VALIDATION_4005', 'chunking_strategy.static.max_chunk_size_tokens'],
    ['max as a string', { type: 'static', static: { max_chunk_size_tokens: '200', chunk_overlap_tokens: 0 } }, 'VALIDATION_4005', 'chunking_strategy.static.max_chunk_size_tokens'],
    ['overlap above half', { type: 'static', static: { max_chunk_size_tokens: 200, chunk_overlap_tokens: 101 } }, 'VALIDATION_4005', 'chunking_strategy.static.chunk_overlap_tokens'],
    ['negative overlap', { type: 'static', static: { max_chunk_size_tokens: 200, chunk_overlap_tokens: -1 } }, 'VALIDATION_4005', 'chunking_strategy.static.chunk_overlap_tokens'],
    ['unknown static key', { type: 'static', static: { max_chunk_size_tokens: 200, chunk_overlap_tokens: 0, unit: 'tokens' } }, 'VALIDATION_4005', 'chunking_strategy.static.unit'],
  ])('refuses %s with a 400 naming the field', (_name, input, code, field) => {
    let caught: unknown;
    try {
      resolveChunkingStrategy(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    const error = caught as GatewayError;
    expect(error.code).toBe(code);
    expect(error.status).toBe(400);
    expect(error.details).toEqual({ field });
    expect(error.message).toContain(field);
  });
});

describe('chunkOptionsFor / reportedChunkingStrategy', () => {
  it.each<[ChunkingStrategy, { maxTokens: number; overlapTokens: number }]>([
    [{ type: 'auto' }, { maxTokens: 800, overlapTokens: 400 }],
    [staticOf(256, 64), { maxTokens: 256, overlapTokens: 64 }],
  ])('%j → %j', (strategy, options) => {
    expect(chunkOptionsFor(strategy)).toEqual(options);
    expect(reportedChunkingStrategy(strategy)).toEqual(staticOf(options.maxTokens, options.overlapTokens));
  });
});
