import { open, type FileHandle } from 'node:fs/promises';
import type { Sealer } from './sealer.js';
import { decodeTextChunk, readChunkTable, unsealChunk, type ChunkTable, type StoredChunk } from './text-segment.js';

/**
 * Segment files kept open per store: a descriptor each (Node raises the soft limit to the hard
 * one, tens of thousands on Linux and macOS). At 100,000 chunks in ~1,000 files a search's hits
 * fall anywhere, so fewer meant an open, a table read and a close for most hits (issue 16).
 */
const OPEN_SEGMENTS = 1024;

interface OpenSegment {
  handle: FileHandle;
  /** The per-chunk layout's offset table; null for a segment sealed whole (read entire, then closed). */
  table: ChunkTable | null;
  /** Reads in flight: an evicted segment is closed once they are done. */
  users: number;
  evicted: boolean;
}

/**
 * Reads single chunks out of `chunks/<segment>.text` files for search results (issue 16): a few
 * segments stay open with their offset table read, so a chunk is one positional read of its own
 * sealed bytes (a readFile was an open, a stat, a read of the whole segment and a close, four trips
 * through the thread pool, for every result the chunk cache did not hold). Segment names are fresh
 * per commit (store-data.ts), so an open segment never goes stale; a removed file's is forgotten.
 */
export class ChunkReader {
  private readonly segments = new Map<string, Promise<OpenSegment>>();

  /** One chunk; `all` carries every chunk instead when the segment is an older whole-sealed one. */
  async read(filePath: string, index: number, sealer: Sealer, aad: string): Promise<{ chunk: StoredChunk | undefined; all?: StoredChunk[] }> {
    const segment = await this.acquire(filePath);
    try {
      if (segment.table === null) {
        const whole = await segment.handle.readFile();
        this.forget(filePath);
        return decodeTextChunk(whole, index, sealer, aad);
      }
      const range = segment.table.range(index);
      if (range === undefined) return { chunk: undefined };
      const blob = Buffer.allocUnsafe(range.length);
      await segment.handle.read(blob, 0, range.length, range.position);
      return { chunk: unsealChunk(blob, index, sealer, aad) };
    } finally {
      this.release(segment);
    }
  }

  /** Closes a segment's handle (its file is being removed). */
  forget(filePath: string): void {
    const opening = this.segments.get(filePath);
    if (opening === undefined) return;
    this.segments.delete(filePath);
    void opening.then((segment) => this.evict(segment)).catch(() => undefined);
  }

  /** Closes every handle. */
  close(): void {
    for (const filePath of [...this.segments.keys()]) this.forget(filePath);
  }

  private async acquire(filePath: string): Promise<OpenSegment> {
    let opening = this.segments.get(filePath);
    if (opening !== undefined) {
      // Most recently used last.
      this.segments.delete(filePath);
      this.segments.set(filePath, opening);
    } else {
      opening = openSegment(filePath);
      this.segments.set(filePath, opening);
      opening.catch(() => this.segments.get(filePath) === opening && this.segments.delete(filePath));
      for (const [oldest] of this.segments) {
        if (this.segments.size <= OPEN_SEGMENTS) break;
        this.forget(oldest);
      }
    }
    const segment = await opening;
    // Evicted while it opened (and closed, nobody using it then): open it again.
    if (segment.evicted) return this.acquire(filePath);
    segment.users += 1;
    return segment;
  }

  private release(segment: OpenSegment): void {
    segment.users -= 1;
    if (segment.evicted && segment.users === 0) void segment.handle.close().catch(() => undefined);
  }

  private evict(segment: OpenSegment): void {
    segment.evicted = true;
    if (segment.users === 0) void segment.handle.close().catch(() => undefined);
  }
}

async function openSegment(filePath: string): Promise<OpenSegment> {
  const handle = await open(filePath, 'r');
  try {
    return { handle, table: await readChunkTable(handle), users: 0, evicted: false };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}
