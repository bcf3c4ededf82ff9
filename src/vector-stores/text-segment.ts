import type { FileHandle } from 'node:fs/promises';
import type { Sealer } from './sealer.js';

/** One chunk of a file as stored: its text and token count. */
export interface StoredChunk {
  text: string;
  tokens: number;
}

/**
 * A file's `chunks/<segment>.text`: every chunk sealed on its own, behind a table of offsets, so
 * a search that returns one chunk of a large file decrypts and parses that chunk alone (a segment
 * sealed whole cost a decrypt and JSON.parse of the entire file per result once the text cache
 * no longer held it — milliseconds for a file of a few hundred chunks).
 *
 * Layout: "IGWC" | count (u32 LE) | count + 1 offsets (u32 LE, from the end of the table) | the
 * sealed chunks, each `{"text","tokens"}` JSON under its own additional data (`<aad>:<index>`, so
 * chunks cannot be swapped within or between files). Segments written before this layout are one
 * sealed JSON array (they start with the sealed format's version byte, never "I"); both are read.
 */
const MAGIC = Buffer.from('IGWC', 'latin1');

export function encodeTextSegment(chunks: readonly StoredChunk[], sealer: Sealer, aad: string): Buffer {
  const sealed = chunks.map((chunk, index) => sealer.seal(Buffer.from(JSON.stringify({ text: chunk.text, tokens: chunk.tokens }), 'utf8'), `${aad}:${index}`));
  const table = Buffer.alloc(4 + 4 + 4 * (chunks.length + 1));
  MAGIC.copy(table, 0);
  table.writeUInt32LE(chunks.length, 4);
  let offset = 0;
  sealed.forEach((blob, index) => {
    table.writeUInt32LE(offset, 8 + 4 * index);
    offset += blob.length;
  });
  table.writeUInt32LE(offset, 8 + 4 * chunks.length);
  return Buffer.concat([table, ...sealed]);
}

function isChunked(segment: Buffer): boolean {
  return segment.length >= 8 && segment.subarray(0, 4).equals(MAGIC);
}

function chunkBlob(segment: Buffer, index: number): Buffer {
  const count = segment.readUInt32LE(4);
  if (index < 0 || index >= count) throw new RangeError(`no chunk ${index} in a segment of ${count}`);
  const dataStart = 8 + 4 * (count + 1);
  return segment.subarray(dataStart + segment.readUInt32LE(8 + 4 * index), dataStart + segment.readUInt32LE(8 + 4 * (index + 1)));
}

/** One chunk's sealed bytes of a per-chunk segment, opened. */
export function unsealChunk(blob: Buffer, index: number, sealer: Sealer, aad: string): StoredChunk {
  return JSON.parse(sealer.unseal(blob, `${aad}:${index}`).toString('utf8')) as StoredChunk;
}

/** Every chunk of a segment, in order (either layout). */
export function decodeTextSegment(segment: Buffer, sealer: Sealer, aad: string): StoredChunk[] {
  if (!isChunked(segment)) return JSON.parse(sealer.unseal(segment, aad).toString('utf8')) as StoredChunk[];
  const count = segment.readUInt32LE(4);
  return Array.from({ length: count }, (_, index) => unsealChunk(chunkBlob(segment, index), index, sealer, aad));
}

/**
 * One chunk of a segment: only that chunk is decrypted when the segment has the per-chunk
 * layout; an older whole-sealed segment is decoded entirely (`all` then carries every chunk, for
 * the caller's cache).
 */
export function decodeTextChunk(segment: Buffer, index: number, sealer: Sealer, aad: string): { chunk: StoredChunk | undefined; all?: StoredChunk[] } {
  if (!isChunked(segment)) {
    const all = decodeTextSegment(segment, sealer, aad);
    return { chunk: all[index], all };
  }
  if (index < 0 || index >= segment.readUInt32LE(4)) return { chunk: undefined };
  return { chunk: unsealChunk(chunkBlob(segment, index), index, sealer, aad) };
}

/** Where each chunk of a per-chunk segment lies, read from its head once (chunk-reader.ts). */
export class ChunkTable {
  constructor(
    /** Byte offsets of the chunks from `dataStart`, count + 1 of them. */
    private readonly offsets: Uint32Array,
    private readonly dataStart: number,
  ) {}

  /** The chunk's sealed bytes in the file, or undefined past the last chunk. */
  range(index: number): { position: number; length: number } | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.offsets.length - 1) return undefined;
    return { position: this.dataStart + this.offsets[index]!, length: this.offsets[index + 1]! - this.offsets[index]! };
  }
}

/** Bytes of a segment's head read at once: the table of a segment of up to 1,000 chunks comes in the same read. */
const HEAD_BYTES = 4096;

/** A per-chunk segment's offset table, read from an open file; null for an older segment sealed whole. */
export async function readChunkTable(handle: FileHandle): Promise<ChunkTable | null> {
  const head = Buffer.alloc(HEAD_BYTES);
  const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
  if (bytesRead < 8 || !isChunked(head)) return null;
  const count = head.readUInt32LE(4);
  const tableBytes = 4 * (count + 1);
  let table = head.subarray(8, 8 + tableBytes);
  if (8 + tableBytes > bytesRead) {
    table = Buffer.alloc(tableBytes);
    const { bytesRead: tableRead } = await handle.read(table, 0, tableBytes, 8);
    if (tableRead !== tableBytes) throw new Error('text segment table is truncated');
  }
  const offsets = new Uint32Array(count + 1);
  for (let index = 0; index <= count; index += 1) offsets[index] = table.readUInt32LE(4 * index);
  return new ChunkTable(offsets, 8 + tableBytes);
}
