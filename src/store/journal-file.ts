import { constants } from 'node:fs';
import { open, readFile, truncate, type FileHandle } from 'node:fs/promises';
import { writeFileAtomic } from './atomic-write.js';

/**
 * Append-only and O_DSYNC: each write returns once its bytes are as durable as after an fdatasync,
 * so a group write is one thread-pool round trip, not two (write, then datasync). Each round trip
 * wakes a pool thread and then the event loop, ~0.1 ms of CPU from idle on the 2-core VM, and an
 * ingested file writes three journals (issue 16).
 */
const APPEND_DURABLY = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC;

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * An append-only JSONL file with group commit: a line is acknowledged once it is written durably
 * (O_DSYNC), and every line queued while one write is on its way goes out in the next single
 * write. So a burst of N changes costs a few writes, not N, and one change costs one short append
 * whatever the size of the collection (DESIGN §4).
 */
export class JournalFile {
  private handle: FileHandle | null = null;
  private pending: string[] = [];
  private waiters: Waiter[] = [];
  private chain: Promise<void> = Promise.resolve();
  private flushQueued = false;
  /** Lines written since `keepFrom()`: what a compacted journal must still hold. */
  private tail: string[] | null = null;

  constructor(readonly filePath: string) {}

  /**
   * Lines of the journal, oldest first. A torn last line (a crash mid-append) is cut off the file,
   * so the next append does not glue onto it.
   */
  async readLines(): Promise<string[]> {
    let text: string;
    try {
      text = await readFile(this.filePath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const end = text.lastIndexOf('\n') + 1;
    if (end < text.length) await truncate(this.filePath, Buffer.byteLength(text.slice(0, end), 'utf8'));
    return text
      .slice(0, end)
      .split('\n')
      .filter((line) => line.trim() !== '');
  }

  /** Queues one line (no newline inside); resolves once it is durable. */
  append(line: string): Promise<void> {
    this.pending.push(`${line}\n`);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (!this.flushQueued) {
      this.flushQueued = true;
      this.chain = this.chain.then(() => this.flush());
    }
    return done;
  }

  private async flush(): Promise<void> {
    this.flushQueued = false;
    if (this.pending.length === 0) return;
    const lines = this.pending;
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    try {
      this.handle ??= await open(this.filePath, APPEND_DURABLY, 0o600);
      // On the thread pool, not a disk thread: a journal line is on request paths (an upload's
      // record, an attach), and one serial thread made the journals' syncs queue (disk-thread.ts).
      await this.handle.write(lines.join(''));
      this.tail?.push(...lines);
      for (const waiter of waiters) waiter.resolve();
    } catch (error) {
      for (const waiter of waiters) waiter.reject(error as Error);
    }
  }

  /** Starts remembering written lines: everything after this point survives `replaceWithTail()`. */
  keepFrom(): void {
    this.tail = [];
  }

  /**
   * Replaces the journal by the lines written since `keepFrom()` (the snapshot taken then holds
   * everything before), atomically; runs between group writes, so no line is lost.
   */
  replaceWithTail(): Promise<void> {
    const run = async () => {
      await this.flush();
      const kept = this.tail ?? [];
      this.tail = null;
      await this.handle?.close();
      this.handle = null;
      await writeFileAtomic(this.filePath, kept.join(''));
    };
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Writes what is queued and closes the file (a later append reopens it). */
  close(): Promise<void> {
    const run = async () => {
      await this.flush();
      await this.handle?.close();
      this.handle = null;
    };
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }
}
