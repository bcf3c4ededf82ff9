import { open } from 'node:fs/promises';

/**
 * fsync of one folder with group commit. A file created or renamed into a folder survives a
 * power loss only once the folder itself is synced; a record that names the file must not be
 * written before that. Every caller that asks while a sync is running joins the next one (its
 * entry may have been made after the running sync began), so a burst of uploads costs two folder
 * fsyncs, not one each.
 */
export class DirectorySync {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  constructor(private readonly folder: string) {}

  sync(): Promise<void> {
    if (this.running === undefined) {
      this.running = this.syncOnce().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    if (this.next === undefined) {
      this.next = this.running.then(
        () => this.startQueued(),
        () => this.startQueued(),
      );
    }
    return this.next;
  }

  private startQueued(): Promise<void> {
    this.next = undefined;
    return this.sync();
  }

  /** One fsync of the folder (protected: a test counts and paces them). */
  protected async syncOnce(): Promise<void> {
    const handle = await open(this.folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
