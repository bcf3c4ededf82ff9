/**
 * Bytes of decrypted chunk text every open store of this process may hold in memory together
 * (chunk-texts.ts). 256 MB holds the texts of 100,000 small files with room to spare: the kept
 * 100k-chunk bench store (1,070 files of ~100 notes) holds ~14 MB, and 100,000 files of one
 * to two kB each are 100–200 MB. Beyond it a store serves texts by reading its sealed segments, as
 * every store did before (issue 16): memory stays bounded however many large stores are opened.
 */
export const CHUNK_TEXT_MEMORY_BYTES = 256 * 1024 * 1024;

/** A byte allowance shared by the stores that draw on it (one per process; tests make small ones). */
export class TextBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Bytes taken now. */
  get usedBytes(): number {
    return this.used;
  }

  /** Takes `bytes` when they fit under the limit; false (nothing taken) when they do not. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used -= bytes;
  }
}

/** The budget of every store opened in this process. */
export const processTextBudget = new TextBudget(CHUNK_TEXT_MEMORY_BYTES);
