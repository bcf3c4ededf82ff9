import { readFile } from 'node:fs/promises';
import type { Adapter } from 'lowdb';
import { writeFileAtomic } from './atomic-write.js';

/**
 * One JSON file, read whole and replaced atomically (writeFileAtomic: temp + fsync + rename,
 * mode 0600). It is the lowdb adapter of JsonDocument (used with `Low` directly: lowdb's presets
 * silently switch to memory under NODE_ENV=test) and a plain state file for storage billing.
 */
export class AtomicJsonFile<T> implements Adapter<T> {
  private writeChain: Promise<void> = Promise.resolve();
  private sequence = 0;

  constructor(private readonly filePath: string) {}

  async read(): Promise<T | null> {
    try {
      return JSON.parse(await readFile(this.filePath, 'utf8')) as T;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /** Writes are serialised so renames land in call order and the last write wins. */
  write(data: T): Promise<void> {
    const text = `${JSON.stringify(data, null, 2)}\n`;
    const run = () => {
      this.sequence += 1;
      return writeFileAtomic(this.filePath, text, `${process.pid}.${this.sequence}.tmp`);
    };
    const next = this.writeChain.then(run, run);
    this.writeChain = next.catch(() => undefined);
    return next;
  }
}
