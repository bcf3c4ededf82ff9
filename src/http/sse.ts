import type { ServerResponse } from 'node:http';
import { writeHeadWith } from './header-value.js';

/**
 * Server-sent events writer: framing, backpressure (awaits 'drain'), and a comment heartbeat so
 * idle proxies keep the connection open during long upstream pauses.
 */
export class SseWriter {
  private heartbeat: NodeJS.Timeout | null = null;
  private closed = false;
  private pending: string[] = [];
  private flushScheduled = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly heartbeatMs = 15_000,
  ) {}

  open(headers: Record<string, string>): void {
    writeHeadWith(this.response, 200, headers, ['content-type', 'text/event-stream; charset=utf-8', 'cache-control', 'no-cache', 'x-accel-buffering', 'no']);
    // No flushHeaders(): the stream opens once the first upstream chunk is in hand, so the head
    // leaves together with it in one write.
    this.heartbeat = setInterval(() => {
      // The response may have been ended by someone else (the server's error path): writing after
      // that would emit an 'error' on the response instead of a no-op.
      if (!this.closed && !this.response.writableEnded) this.response.write(': keep-alive\n\n');
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  get isOpen(): boolean {
    return this.response.headersSent && !this.closed;
  }

  /**
   * Sends one event. Returns a promise only when the socket pushes back (wait for it before the
   * next event); otherwise undefined, so the hot loop pays no await per event.
   */
  send(data: unknown, event?: string): Promise<void> | undefined {
    if (this.closed) return undefined;
    const payload = typeof data === 'string' ? data : JSON.stringify(data);
    // Events decoded from one upstream read arrive in the same tick: they are joined and leave in
    // one write on the next tick, instead of one socket write (and string copy) per event.
    this.pending.push(event === undefined ? `data: ${payload}\n\n` : `event: ${event}\ndata: ${payload}\n\n`);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(flushWriter, this);
    }
    return this.response.writableNeedDrain ? this.drained() : undefined;
  }

  /**
   * Sends JSON text igw did not build (a pass-through event as the upstream sent it), skipping a
   * parse-and-serialise round trip. Text spanning several lines is framed as one `data:` line
   * each, which SSE clients join back with newlines (JSON allows them between tokens).
   */
  sendText(text: string, event?: string): Promise<void> | undefined {
    return this.send(text.includes('\n') || text.includes('\r') ? text.split(/\r\n|\r|\n/).join('\ndata: ') : text, event);
  }

  /** Joins and writes the events queued this tick (also the next tick's callback: see flushWriter). */
  flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0 || this.response.destroyed || this.response.writableEnded) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.response.write(text);
  }

  private drained(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        this.response.off('drain', done);
        this.response.off('close', done);
        resolve();
      };
      this.response.on('drain', done);
      this.response.on('close', done);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.flush();
    this.response.end();
  }
}

/** The next-tick callback of every writer (the writer passed as its argument): no closure per flush. */
function flushWriter(writer: SseWriter): void {
  writer.flush();
}
