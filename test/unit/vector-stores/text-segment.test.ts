import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SealedDataError } from '../../../src/crypto/sealed.js';
import { keySealer } from '../../../src/vector-stores/sealer.js';
import { decodeTextChunk, decodeTextSegment, encodeTextSegment } from '../../../src/vector-stores/text-segment.js';

const sealer = keySealer(randomBytes(32));
const AAD = 'vector_store:vs_1:file-a:text';
const chunks = [
  { text: 'the first chunk about chess', tokens: 5 },
  { text: 'a second one, ünïcödé included', tokens: 7 },
  { text: '', tokens: 0 },
];

describe('text segments', () => {
  it('round-trip every chunk, and any one chunk alone', () => {
    const segment = encodeTextSegment(chunks, sealer, AAD);
    expect(decodeTextSegment(segment, sealer, AAD)).toEqual(chunks);
    chunks.forEach((chunk, index) => expect(decodeTextChunk(segment, index, sealer, AAD)).toEqual({ chunk }));
    expect(decodeTextChunk(segment, 3, sealer, AAD).chunk).toBeUndefined();
    expect(segment.includes(Buffer.from('chess'))).toBe(false);
  });

  it('decrypt only the chunk asked for: a damaged neighbour does not matter, a damaged chunk is refused', () => {
    const segment = encodeTextSegment(chunks, sealer, AAD);
    segment[segment.length - 1]! ^= 1; // the last chunk's tag
    expect(decodeTextChunk(segment, 0, sealer, AAD).chunk).toEqual(chunks[0]);
    expect(() => decodeTextChunk(segment, 2, sealer, AAD)).toThrow(SealedDataError);
  });

  it('bind each chunk to its file and position (a segment of another file, or chunks swapped, do not open)', () => {
    const segment = encodeTextSegment(chunks.slice(0, 2), sealer, AAD);
    expect(() => decodeTextChunk(segment, 0, sealer, 'vector_store:vs_1:file-b:text')).toThrow(SealedDataError);
    const count = 2;
    const dataStart = 8 + 4 * (count + 1);
    const first = segment.subarray(dataStart + segment.readUInt32LE(8), dataStart + segment.readUInt32LE(12));
    const second = segment.subarray(dataStart + segment.readUInt32LE(12), dataStart + segment.readUInt32LE(16));
    const swapped = Buffer.concat([segment.subarray(0, 8), Buffer.from(new Uint32Array([0, second.length, second.length + first.length]).buffer), second, first]);
    expect(() => decodeTextChunk(swapped, 0, sealer, AAD)).toThrow(SealedDataError);
  });

  it('read segments written before the per-chunk layout (one sealed JSON array)', () => {
    const legacy = sealer.seal(Buffer.from(JSON.stringify(chunks), 'utf8'), AAD);
    expect(decodeTextSegment(legacy, sealer, AAD)).toEqual(chunks);
    expect(decodeTextChunk(legacy, 1, sealer, AAD)).toEqual({ chunk: chunks[1], all: chunks });
  });
});
