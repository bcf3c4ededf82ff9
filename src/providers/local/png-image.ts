import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { deflate } from 'node:zlib';

/**
 * `local-image` (DESIGN §3): a deterministic picture, not a generative model. A hash of
 * (prompt, seed, index) picks a two-colour gradient and a few translucent shapes, so the same
 * request always gives the same bytes and different prompts give visibly different images.
 */

export interface RenderPngOptions {
  prompt: string;
  width: number;
  height: number;
  seed?: number;
  /** Position of the image within an `n > 1` request, so siblings differ. */
  index: number;
}

/** Sanity limit on either side, to keep one request from allocating gigabytes. */
export const MAX_PNG_SIDE = 4096;

const deflateAsync = promisify(deflate);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const BYTES_PER_PIXEL = 3; // 8-bit RGB
/** PNG filter type "Sub": each byte minus the one a pixel to its left, which makes gradients compress well. */
const FILTER_SUB = 1;
const SHAPE_COUNT = 4;
const SHAPE_OPACITY = 0.55;

interface Shape {
  kind: 'circle' | 'rect';
  centerX: number;
  centerY: number;
  size: number;
  color: [number, number, number];
}

export async function renderPng(options: RenderPngOptions): Promise<Buffer> {
  const { width, height } = options;
  for (const side of [width, height]) {
    if (!Number.isInteger(side) || side < 1 || side > MAX_PNG_SIDE) throw new RangeError(`image sides must be integers from 1 to ${MAX_PNG_SIDE}`);
  }
  const entropy = createHash('sha256').update(JSON.stringify([options.prompt, options.seed ?? null, options.index])).digest();
  const byte = (position: number) => entropy[position % entropy.length]!;
  const colorAt = (position: number): [number, number, number] => [byte(position), byte(position + 1), byte(position + 2)];

  const from = colorAt(0);
  const to = colorAt(3);
  const angle = (byte(6) / 256) * 2 * Math.PI;
  const directionX = Math.cos(angle);
  const directionY = Math.sin(angle);
  const shapes: Shape[] = Array.from({ length: SHAPE_COUNT }, (_, shape) => {
    const base = 7 + shape * 6;
    return {
      kind: byte(base) % 2 === 0 ? 'circle' : 'rect',
      centerX: (byte(base + 1) / 255) * width,
      centerY: (byte(base + 2) / 255) * height,
      size: (0.08 + (byte(base + 3) / 255) * 0.22) * Math.min(width, height),
      color: colorAt(base + 3),
    };
  });

  const rowLength = 1 + width * BYTES_PER_PIXEL;
  const raw = Buffer.alloc(rowLength * height);
  const pixel = new Float64Array(3);
  const previous = new Uint8Array(BYTES_PER_PIXEL);
  for (let y = 0; y < height; y++) {
    const rowStart = y * rowLength;
    raw[rowStart] = FILTER_SUB;
    previous.fill(0);
    for (let x = 0; x < width; x++) {
      // Project onto the gradient direction, normalised to [0,1] across the image.
      const u = (x + 0.5) / width - 0.5;
      const v = (y + 0.5) / height - 0.5;
      const t = Math.min(1, Math.max(0, (u * directionX + v * directionY) / Math.SQRT2 + 0.5));
      for (let channel = 0; channel < 3; channel++) pixel[channel] = from[channel]! + (to[channel]! - from[channel]!) * t;
      for (const shape of shapes) {
        if (!inside(shape, x + 0.5, y + 0.5)) continue;
        for (let channel = 0; channel < 3; channel++) pixel[channel] = pixel[channel]! * (1 - SHAPE_OPACITY) + shape.color[channel]! * SHAPE_OPACITY;
      }
      const offset = rowStart + 1 + x * BYTES_PER_PIXEL;
      for (let channel = 0; channel < 3; channel++) {
        const value = Math.round(pixel[channel]!);
        raw[offset + channel] = (value - previous[channel]!) & 0xff;
        previous[channel] = value;
      }
    }
  }

  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: truecolour
  header[10] = 0; // compression: deflate
  header[11] = 0; // filter method: adaptive
  header[12] = 0; // no interlace
  // Async deflate: this runs inside the server, and a large image must not block other requests.
  const compressed = await deflateAsync(raw);
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', header), pngChunk('IDAT', compressed), pngChunk('IEND', Buffer.alloc(0))]);
}

function inside(shape: Shape, x: number, y: number): boolean {
  const dx = x - shape.centerX;
  const dy = y - shape.centerY;
  return shape.kind === 'circle' ? dx * dx + dy * dy <= shape.size * shape.size : Math.abs(dx) <= shape.size && Math.abs(dy) <= shape.size * 0.6;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, 'latin1');
  data.copy(chunk, 8);
  // The CRC covers the type and the data, not the length.
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return chunk;
}

/** zlib.crc32 only exists from Node 20.15, so a table-driven CRC-32 (ISO 3309, as PNG uses). */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let value = 0; value < 256; value++) {
    let crc = value;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
    table[value] = crc >>> 0;
  }
  return table;
})();

export function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
