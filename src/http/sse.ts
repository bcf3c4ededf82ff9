import type { ServerResponse } from 'node:http';

/**
 * Server-sent events writer: framing, backpressure (awaits 'drain'), and a comment heartbeat so
 * idle proxies keep the connection open during long upstream pauses.
 */
export class SseWriter {
  private heartbeat: NodeJS.Timeout | null = null;
  private closed = false;
  private corked = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly heartbeatMs = 15_000,
  ) {}

  open(headers: Record<string, string>): void {
    this.response.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // No flushHeaders(): the stream opens once the first upstream chunk is in hand, so the head
    // leaves together with it in one write.
    this.heartbeat = setInterval(() => {
      if (!this.closed) this.response.write(': keep-alive\n\n');
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  get isOpen(): boolean {
    return this.response.headersSent && !this.closed;
  }

  /** Sends one event; resolves once the socket accepted it (backpressure). */
  async send(data: unknown, event?: string): Promise<void> {
    if (this.closed) return;
    const payload = typeof data === 'string' ? data : JSON.stringify(data);
    const frame = `${event === undefined ? '' : `event: ${event}\n`}data: ${payload}\n\n`;
    // Events decoded from one upstream read arrive in the same tick: cork so they leave in one
    // write instead of one syscall per event; uncorking on the next tick adds no waiting.
    if (!this.corked) {
      this.corked = true;
      this.response.cork();
      process.nextTick(() => {
        this.corked = false;
        this.response.uncork();
      });
    }
    if (!this.response.write(frame)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.response.off('drain', done);
          this.response.off('close', done);
          resolve();
        };
        this.response.on('drain', done);
        this.response.on('close', done);
      });
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.response.end();
  }
}
