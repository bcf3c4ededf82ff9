/** Bounded concurrency shared by every running batch (config batches.concurrency). */
export class Semaphore {
  private waiting: Array<() => void> = [];
  private active = 0;

  constructor(readonly permits: number) {}

  async acquire(): Promise<void> {
    if (this.active < this.permits) {
      this.active += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Hands the permit straight to the next waiter, if any. */
  release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.active -= 1;
  }
}
