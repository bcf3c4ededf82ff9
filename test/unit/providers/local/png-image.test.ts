import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, renderPng } from '../../../../src/providers/local/png-image.js';

interface PngChunk {
  type: string;
  data: Buffer;
  crc: number;
}

function readChunks(png: Buffer): PngChunk[] {
  const chunks: PngChunk[] = [];
  for (let offset = 8; offset < png.length; ) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    chunks.push({ type, data: png.subarray(offset + 8, offset + 8 + length), crc: png.readUInt32BE(offset + 8 + length) });
    offset += 12 + length;
  }
  return chunks;
}

const options = { prompt: 'a red fox in the snow', width: 64, height: 48, index: 0 };

describe('crc32', () => {
  it.each([
    { input: '', crc: 0 },
    { input: 'IEND', crc: 0xae426082 },
    { input: '123456789', crc: 0xcbf43926 },
  ])('crc32($input) = $crc', ({ input, crc }) => {
    expect(crc32(Buffer.from(input, 'latin1'))).toBe(crc);
  });
});

describe('renderPng', () => {
  it.each([
    { width: 64, height: 48 },
    { width: 1, height: 1 },
    { width: 256, height: 17 },
  ])('writes a well-formed $width×$height PNG', async ({ width, height }) => {
    const png = await renderPng({ ...options, width, height });
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const chunks = readChunks(png);
    expect(chunks.map((chunk) => chunk.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    for (const chunk of chunks) expect(crc32(Buffer.concat([Buffer.from(chunk.type, 'latin1'), chunk.data]))).toBe(chunk.crc);
    const header = chunks[0]!.data;
    expect(header.readUInt32BE(0)).toBe(width);
    expect(header.readUInt32BE(4)).toBe(height);
    expect([...header.subarray(8)]).toEqual([8, 2, 0, 0, 0]);
    const raw = inflateSync(chunks[1]!.data);
    expect(raw.length).toBe(height * (1 + width * 3));
    for (let row = 0; row < height; row++) expect(raw[row * (1 + width * 3)]).toBeLessThanOrEqual(4);
  });

  it('is deterministic', async () => {
    expect((await renderPng(options)).equals(await renderPng(options))).toBe(true);
  });

  it.each([
    { name: 'prompt', change: { prompt: 'a blue whale' } },
    { name: 'seed', change: { seed: 7 } },
    { name: 'index', change: { index: 1 } },
  ])('changes with the $name', async ({ change }) => {
    expect((await renderPng(options)).equals(await renderPng({ ...options, ...change }))).toBe(false);
  });

  it.each([
    { width: 0, height: 10 },
    { width: 10, height: 5000 },
    { width: 2.5, height: 10 },
  ])('refuses $width×$height', async ({ width, height }) => {
    await expect(renderPng({ ...options, width, height })).rejects.toThrow(RangeError);
  });
});
