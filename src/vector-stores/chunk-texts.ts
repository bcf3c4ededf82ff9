import type { StoredChunk } from './text-segment.js';
import type { TextBudget } from './text-budget.js';

/**
 * Counted per held file beside its bytes: the Buffer object, its backing store header and the
 * map entry (a few hundred bytes in V8; an estimate, so that 100,000 one-chunk files are not
 * counted as their text alone).
 */
const FILE_OVERHEAD_BYTES = 200;

/**
 * A store's decrypted chunk texts in memory, so that a search result's text is a lookup instead
 * of a read of its sealed segment (issue 16: those reads were ~27% of the main thread at 100k
 * chunks). Held compactly, one Buffer per file:
 *   count (u32) | count + 1 text offsets (u32, from the end of the tokens) | count token counts (u32) | UTF-8 texts
 * A chunk's text is decoded when asked for (a search decodes its ~10 hits: a microsecond each),
 * instead of keeping one JS string per chunk. Every byte comes out of a TextBudget shared by the
 * process's stores; a file that does not fit is not held and its texts are read from disk.
 * Plaintext lives only here, in memory: nothing of it is written anywhere (DESIGN §4).
 */
export class ChunkTexts {
  private readonly files = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly budget: TextBudget) {}

  has(fileId: string): boolean {
    return this.files.has(fileId);
  }

  /** Bytes held (counted as the budget counts them). */
  get byteLength(): number {
    return this.bytes;
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
    this.bytes += bytes;
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
    this.bytes -= cost(held);
    this.budget.give(cost(held));
  }

  /** Frees everything (the store closes). */
  clear(): void {
    for (const fileId of [...this.files.keys()]) this.drop(fileId);
  }
}

function cost(held: Buffer): number {
  return held.byteLength + FILE_OVERHEAD_BYTES;
}
