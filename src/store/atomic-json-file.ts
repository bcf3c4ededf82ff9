import { open, readFile, rename } from 'node:fs/promises';
import type { Adapter } from 'lowdb';

/**
 * lowdb adapter writing JSON atomically (temp file + fsync + rename) with mode 0600.
 * Used with `Low` directly: lowdb's presets silently switch to memory under NODE_ENV=test.
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
    const run = async () => {
      this.sequence += 1;
      const temporary = `${this.filePath}.${process.pid}.${this.sequence}.tmp`;
      const handle = await open(temporary, 'w', 0o600);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, this.filePath);
    };
    const next = this.writeChain.then(run, run);
    this.writeChain = next.catch(() => undefined);
    return next;
  }
}
