import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { SealedDataError } from '../../../src/crypto/sealed.js';
import { createSealStream, createUnsealStream, sealedSize, unsealWhole } from '../../../src/crypto/sealed-stream.js';

const key = randomBytes(32);

async function collect(source: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of source) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** Feeds `data` in chunks of `chunkBytes` so segment boundaries fall inside and across chunks. */
function chunked(data: Buffer, chunkBytes: number): Readable {
  const parts: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += chunkBytes) parts.push(data.subarray(offset, offset + chunkBytes));
  return Readable.from(parts);
}

async function sealBytes(data: Buffer, segmentBytes: number, chunkBytes = 1000, aad?: string): Promise<Buffer> {
  return collect(chunked(data, chunkBytes).pipe(createSealStream(key, { segmentBytes, aad })));
}

async function unsealBytes(sealed: Buffer, chunkBytes = 777, aad?: string, openKey = key): Promise<Buffer> {
  const parts: Buffer[] = [];
  await pipeline(chunked(sealed, chunkBytes), createUnsealStream(openKey, { aad }), async (source: AsyncIterable<Buffer>) => {
    for await (const part of source) parts.push(part);
  });
  return Buffer.concat(parts);
}

describe('sealed stream round trip', () => {
  it.each([
    { name: 'empty', size: 0, segment: 64 },
    { name: 'one byte', size: 1, segment: 64 },
    { name: 'exactly one segment', size: 64, segment: 64 },
    { name: 'one segment plus one', size: 65, segment: 64 },
    { name: 'exact multiple of the segment', size: 640, segment: 64 },
    { name: 'odd sizes', size: 10_007, segment: 333 },
    { name: 'default 64 KiB segments, 1 MiB + 5', size: 1024 * 1024 + 5, segment: 64 * 1024 },
  ])('$name', async ({ size, segment }) => {
    const data = randomBytes(size);
    const sealed = await sealBytes(data, segment);
    expect(sealed.length).toBe(sealedSize(size, segment));
    expect((await unsealBytes(sealed)).equals(data)).toBe(true);
  });

  it('binds the aad', async () => {
    const data = Buffer.from('file contents');
    const sealed = await sealBytes(data, 8, 3, 'file-abc');
    expect((await unsealBytes(sealed, 5, 'file-abc')).equals(data)).toBe(true);
    await expect(unsealBytes(sealed, 5, 'file-xyz')).rejects.toThrow(SealedDataError);
  });

  it('emits plaintext before the whole file was read (streams, does not buffer)', async () => {
    const sealer = createSealStream(key, { segmentBytes: 16 });
    const opener = createUnsealStream(key);
    sealer.pipe(opener);
    const seen: Buffer[] = [];
    opener.on('data', (part: Buffer) => seen.push(part));
    sealer.write(Buffer.alloc(100, 1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // 100 bytes written, the stream not ended: all full segments but the held-back one are out.
    expect(Buffer.concat(seen).length).toBeGreaterThanOrEqual(64);
    sealer.end();
    await new Promise((resolve) => opener.once('end', resolve));
    expect(Buffer.concat(seen).equals(Buffer.alloc(100, 1))).toBe(true);
  });
});

describe('sealed stream tamper detection', () => {
  const segment = 32;
  const tag = 16;
  const header = 24;
  const data = Buffer.from(Array.from({ length: 32 * 4 + 10 }, (_, index) => index % 251));
  const sealedPromise = sealBytes(data, segment);
  const seg = (index: number) => header + index * (segment + tag);

  it.each<{ name: string; alter: (sealed: Buffer) => Buffer }>([
    { name: 'flipped ciphertext byte', alter: (sealed) => { const copy = Buffer.from(sealed); copy[seg(1) + 3]! ^= 0x80; return copy; } },
    { name: 'flipped tag byte', alter: (sealed) => { const copy = Buffer.from(sealed); copy[seg(1) - 1]! ^= 1; return copy; } },
    { name: 'flipped salt byte', alter: (sealed) => { const copy = Buffer.from(sealed); copy[10]! ^= 1; return copy; } },
    { name: 'changed segment size', alter: (sealed) => { const copy = Buffer.from(sealed); copy.writeUInt32BE(16, 4); return copy; } },
    { name: 'bad magic', alter: (sealed) => { const copy = Buffer.from(sealed); copy[0] = 0x41; return copy; } },
    { name: 'truncated at a segment boundary', alter: (sealed) => sealed.subarray(0, seg(2)) },
    { name: 'truncated mid-segment', alter: (sealed) => sealed.subarray(0, seg(2) + 10) },
    { name: 'only the header', alter: (sealed) => sealed.subarray(0, header) },
    { name: 'shorter than the header', alter: (sealed) => sealed.subarray(0, 10) },
    { name: 'last segment dropped', alter: (sealed) => sealed.subarray(0, seg(4)) },
    {
      name: 'two segments swapped',
      alter: (sealed) => Buffer.concat([sealed.subarray(0, seg(0)), sealed.subarray(seg(1), seg(2)), sealed.subarray(seg(0), seg(1)), sealed.subarray(seg(2))]),
    },
    { name: 'extra bytes appended', alter: (sealed) => Buffer.concat([sealed, Buffer.alloc(5)]) },
  ])('$name', async ({ alter }) => {
    const sealed = await sealedPromise;
    await expect(unsealBytes(alter(sealed))).rejects.toThrow(SealedDataError);
  });

  it('a wrong key fails', async () => {
    await expect(unsealBytes(await sealedPromise, 100, undefined, randomBytes(32))).rejects.toThrow(SealedDataError);
  });

  it('a wrong key fails right after the right one opened the same stream (per-file keys are remembered per data key)', async () => {
    const sealed = await sealedPromise;
    expect((await unsealBytes(sealed)).equals(Buffer.from(data))).toBe(true);
    await expect(unsealBytes(sealed, 100, undefined, randomBytes(32))).rejects.toThrow(SealedDataError);
    // Same bytes in another buffer: the same per-file key, so it opens.
    expect((await unsealBytes(sealed, 100, undefined, Buffer.from(key))).equals(Buffer.from(data))).toBe(true);
  });

  it('a segment from another file sealed with the same key does not fit', async () => {
    const sealed = await sealedPromise;
    const other = await sealBytes(Buffer.from(data), segment);
    const spliced = Buffer.concat([sealed.subarray(0, seg(1)), other.subarray(seg(1), seg(2)), sealed.subarray(seg(2))]);
    await expect(unsealBytes(spliced)).rejects.toThrow(SealedDataError);
  });

  it('does not contain the plaintext', async () => {
    const plaintext = Buffer.from('a recognisable sentence that must not be on disk '.repeat(20));
    const sealed = await sealBytes(plaintext, 64);
    expect(sealed.includes(Buffer.from('recognisable sentence'))).toBe(false);
  });
});

describe('unsealWhole (a small stored file read at once)', () => {
  it.each([0, 1, 64, 65, 1000])('opens %i bytes sealed in 64-byte segments like the stream does', async (size) => {
    const data = randomBytes(size);
    const sealed = await sealBytes(data, 64, 100, 'file-x');
    expect(unsealWhole(key, sealed, { aad: 'file-x' }).equals(data)).toBe(true);
  });

  it('refuses a flipped bit, a cut at a segment boundary, another aad and another key', async () => {
    const data = randomBytes(1000);
    const sealed = await sealBytes(data, 64, 100, 'file-x');
    const flipped = Buffer.from(sealed);
    flipped[500]! ^= 1;
    expect(() => unsealWhole(key, flipped, { aad: 'file-x' })).toThrow(SealedDataError);
    // Header (24) plus five whole segments: a valid-looking prefix whose last segment was not sealed as last.
    expect(() => unsealWhole(key, sealed.subarray(0, 24 + 5 * 80), { aad: 'file-x' })).toThrow(SealedDataError);
    expect(() => unsealWhole(key, sealed, { aad: 'file-y' })).toThrow(SealedDataError);
    expect(() => unsealWhole(randomBytes(32), sealed, { aad: 'file-x' })).toThrow(SealedDataError);
    expect(() => unsealWhole(key, sealed.subarray(0, 10), { aad: 'file-x' })).toThrow(SealedDataError);
  });
});
