/** Uploads larger than this are not kept (ingestion reads them from disk). */
const MAX_ENTRY_BYTES = 64 * 1024;
/** All kept uploads together: the files uploaded while ingestion catches up with them. */
const MAX_TOTAL_BYTES = 8 * 1024 * 1024;

/**
 * The sealed bytes of the latest small uploads, by file id, until ingestion reads them once: a
 * file uploaded and attached is read back moments later, and from here that costs no disk-thread
 * round trip (~0.1-0.15 ms of CPU from idle on the 2-core VM, issue 16). The bytes are the ones
 * written to disk (still sealed: the reader unseals and checks them as it would the file's), and
 * a stored file never changes, so they cannot be stale. Oldest first out past MAX_TOTAL_BYTES;
 * each entry is a copy of its own (an upload's buffer may be a view of Node's shared 8 KB pool).
 */
export class RecentUploads {
  private readonly sealed = new Map<string, Buffer>();
  private bytes = 0;

  keep(id: string, sealed: Buffer): void {
    if (sealed.length > MAX_ENTRY_BYTES) return;
    const own = Buffer.allocUnsafeSlow(sealed.length);
    sealed.copy(own);
    this.drop(id);
    this.sealed.set(id, own);
    this.bytes += own.length;
    for (const [oldest, kept] of this.sealed) {
      if (this.bytes <= MAX_TOTAL_BYTES) break;
      this.sealed.delete(oldest);
      this.bytes -= kept.length;
    }
  }

  /** The kept bytes of `id`, given out once (later reads go to the disk). */
  take(id: string): Buffer | undefined {
    const kept = this.sealed.get(id);
    if (kept !== undefined) this.drop(id);
    return kept;
  }

  drop(id: string): void {
    const kept = this.sealed.get(id);
    if (kept === undefined) return;
    this.sealed.delete(id);
    this.bytes -= kept.length;
  }

  /** Bytes kept now (a test checks the bound). */
  get size(): number {
    return this.bytes;
  }
}
