import type { StoredChunk } from './text-segment.js';
import type { TextBudget } from './text-budget.js';

/**
 * Counted per held file beside its bytes: the Buffer object, its backing store header and the
 * map entry (a few hundred bytes in V8; an estimate, so that 100,000 one-chunk files are not
 * counted as their text alone).
 */
const FILE_OVERHEAD_BYTES = 200;
/** Held files are gathered into parts of about this size when the image is written (sealInSlices yields between parts). */
const IMAGE_PART_BYTES = 1024 * 1024;
const IMAGE_MAGIC = Buffer.from('IGWT1', 'latin1');

/**
 * A store's decrypted chunk texts in memory, so that a search result's text is a lookup instead
 * of a read of its sealed segment (issue 16: those reads were ~27% of the main thread at 100k
 * chunks). Held compactly, one Buffer per file:
 *   count (u32) | count + 1 text offsets (u32, from the end of the tokens) | count token counts (u32) | UTF-8 texts
 * A chunk's text is decoded when asked for (a search decodes its ~10 hits: a microsecond each),
 * instead of keeping one JS string per chunk. Every byte comes out of a TextBudget shared by the
 * process's stores; a file that does not fit is not held and its texts are read from disk.
 * Plaintext lives only here, in memory; the image of the held files (imageParts) is written
 * sealed only (store-data.ts), so nothing is unsealed at rest (DESIGN §4).
 */
export class ChunkTexts {
  private readonly files = new Map<string, Buffer>();
  /** Whether what is held differs from the last image written (or read). */
  private changedSinceImage = false;

  constructor(private readonly budget: TextBudget) {}

  has(fileId: string): boolean {
    return this.files.has(fileId);
  }

  get changed(): boolean {
    return this.changedSinceImage;
  }

  /** The held files count as written (an image of them is being written); `markChanged` undoes it when that fails. */
  markSaved(): void {
    this.changedSinceImage = false;
  }

  markChanged(): void {
    this.changedSinceImage = true;
  }

  /** Holds a file's chunks in place of what was held for it; false (nothing held) when over the budget. */
  hold(fileId: string, chunks: readonly StoredChunk[]): boolean {
    this.drop(fileId);
    const count = chunks.length;
    const textStart = 4 * (2 * count + 2);
    let textBytes = 0;
    for (const chunk of chunks) textBytes += Buffer.byteLength(chunk.text, 'utf8');
    const bytes = textStart + textBytes + FILE_OVERHEAD_BYTES;
    if (!this.budget.take(bytes)) return false;
    this.changedSinceImage = true;
    const held = Buffer.allocUnsafe(textStart + textBytes);
    held.writeUInt32LE(count, 0);
    let offset = 0;
    chunks.forEach((chunk, index) => {
      held.writeUInt32LE(offset, 4 + 4 * index);
      held.writeUInt32LE(chunk.tokens, 4 * (count + 2 + index));
      offset += held.write(chunk.text, textStart + offset, 'utf8');
    });
    held.writeUInt32LE(offset, 4 + 4 * count);
    this.files.set(fileId, held);
    return true;
  }

  /** A chunk's text: undefined when the file is not held, '' past its last chunk. */
  text(fileId: string, index: number): string | undefined {
    const held = this.files.get(fileId);
    if (held === undefined) return undefined;
    const count = held.readUInt32LE(0);
    if (!Number.isInteger(index) || index < 0 || index >= count) return '';
    const textStart = 4 * (2 * count + 2);
    return held.toString('utf8', textStart + held.readUInt32LE(4 + 4 * index), textStart + held.readUInt32LE(8 + 4 * index));
  }

  /** Every chunk of a held file, in order (a fresh array); undefined when the file is not held. */
  chunks(fileId: string): StoredChunk[] | undefined {
    const held = this.files.get(fileId);
    if (held === undefined) return undefined;
    const count = held.readUInt32LE(0);
    return Array.from({ length: count }, (_, index) => ({ text: this.text(fileId, index)!, tokens: held.readUInt32LE(4 * (count + 2 + index)) }));
  }

  /** Frees a file's texts (removed or replaced). */
  drop(fileId: string): void {
    const held = this.files.get(fileId);
    if (held === undefined) return;
    this.files.delete(fileId);
    this.changedSinceImage = true;
    this.budget.give(cost(held));
  }

  /** Frees everything (the store closes). */
  clear(): void {
    for (const fileId of [...this.files.keys()]) this.drop(fileId);
  }

  /**
   * Every held file as one image, in parts: "IGWT1" | per file: id length, segment length, held
   * length (u32 LE each), id, segment name (UTF-8), the held buffer. The segment name (fresh per
   * commit, store-data.ts) tells at open whether the file is still the version the image holds.
   */
  *imageParts(segmentOf: (fileId: string) => string | undefined): Generator<Buffer> {
    let batch: Buffer[] = [IMAGE_MAGIC];
    let batchBytes = IMAGE_MAGIC.length;
    for (const [fileId, held] of this.files) {
      const segment = segmentOf(fileId);
      if (segment === undefined) continue;
      const id = Buffer.from(fileId, 'utf8');
      const name = Buffer.from(segment, 'utf8');
      const head = Buffer.alloc(12);
      head.writeUInt32LE(id.length, 0);
      head.writeUInt32LE(name.length, 4);
      head.writeUInt32LE(held.length, 8);
      batch.push(head, id, name, held);
      batchBytes += 12 + id.length + name.length + held.length;
      if (batchBytes >= IMAGE_PART_BYTES) {
        yield Buffer.concat(batch);
        batch = [];
        batchBytes = 0;
      }
    }
    if (batch.length > 0) yield Buffer.concat(batch);
  }

  /**
   * Holds the files of an image (imageParts) that are still the version it holds (`segmentOf`
   * gives the segment name a committed file has now, undefined for a file not committed) and not
   * held yet, each copied out of the image, until the budget is spent. Returns whether the image
   * is stale (it holds files or versions no longer committed). Throws on an image of another layout.
   */
  holdImage(image: Buffer, segmentOf: (fileId: string) => string | undefined): boolean {
    if (image.length < IMAGE_MAGIC.length || !image.subarray(0, IMAGE_MAGIC.length).equals(IMAGE_MAGIC)) throw new Error('not a chunk text image');
    let stale = false;
    let at = IMAGE_MAGIC.length;
    while (at < image.length) {
      const idLength = image.readUInt32LE(at);
      const nameLength = image.readUInt32LE(at + 4);
      const heldLength = image.readUInt32LE(at + 8);
      const fileId = image.toString('utf8', at + 12, at + 12 + idLength);
      const segment = image.toString('utf8', at + 12 + idLength, at + 12 + idLength + nameLength);
      const start = at + 12 + idLength + nameLength;
      at = start + heldLength;
      if (at > image.length) throw new Error('chunk text image is truncated');
      if (segmentOf(fileId) !== segment) {
        stale = true;
        continue;
      }
      if (this.files.has(fileId) || !this.budget.take(heldLength + FILE_OVERHEAD_BYTES)) continue;
      // A copy of its own: a slice would keep the whole image alive after the file is dropped.
      this.files.set(fileId, Buffer.from(image.subarray(start, at)));
    }
    return stale;
  }
}

function cost(held: Buffer): number {
  return held.byteLength + FILE_OVERHEAD_BYTES;
}
