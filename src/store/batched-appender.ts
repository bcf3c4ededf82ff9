import { createWriteStream, type WriteStream } from 'node:fs';

/**
 * Appends lines to a file, coalescing everything written within `flushMs` into one write.
 * Per-request log and journal lines would otherwise cost a write each on the request path;
 * a crash can lose at most the last `flushMs` of lines (a torn last line is skipped on read).
 */
export class BatchedAppender {
  private pending: string[] = [];
  private waiters: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  private timer: NodeJS.Timeout | null = null;
  private stream: WriteStream | null = null;

  constructor(
    private filePath: string,
    private readonly flushMs = 20,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {}

  /** Queues one line (newline added); resolves when it reached the OS. */
  append(line: string): Promise<void> {
    this.appendLine(line);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /**
   * Queues one line nobody waits for (the request log: a failed write is reported through
   * `onError`): no promise and no waiter per request line.
   */
  appendLine(line: string): void {
    // Joined with newlines at flush: no "line\n" string per line.
    this.pending.push(line);
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
  }

  /** Writes whatever is queued now. */
  flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pending.length === 0) return Promise.resolve();
    const text = `${this.pending.join('\n')}\n`;
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    this.stream ??= this.open();
    return new Promise<void>((resolve) => {
      this.stream!.write(text, (error) => {
        for (const waiter of waiters) {
          if (error) waiter.reject(error);
          else waiter.resolve();
        }
        if (error) this.onError(error);
        resolve();
      });
    });
  }

  private open(): WriteStream {
    const stream = createWriteStream(this.filePath, { flags: 'a', mode: 0o600 });
    stream.on('error', (error) => this.onError(error));
    return stream;
  }

  /**
   * Starts writing to another file (day rotation): the lines queued so far go to the current file,
   * every line queued from now on to the new one, even while the old file is still being closed.
   * (Closing first and switching after let a flush in between put new lines in the old file.)
   */
  async switchTo(filePath: string): Promise<void> {
    const flushed = this.flush();
    const stream = this.stream;
    this.stream = null;
    this.filePath = filePath;
    await flushed;
    if (stream !== null) await new Promise<void>((resolve) => stream.end(resolve));
  }

  /** Flushes and closes the file; a later append reopens it. */
  async close(): Promise<void> {
    await this.flush();
    const stream = this.stream;
    this.stream = null;
    if (stream !== null) await new Promise<void>((resolve) => stream.end(resolve));
  }
}
