import { isUpstreamFailure } from '../app/activity.js';
import type { RequestLogEntry } from '../store/request-log.js';

/**
 * `igw serve --no-tui` (or stdout not a terminal): each finished request is one JSON line on
 * stderr, and each upstream failure one more, with its code — what the dashboard shows, for logs
 * and scripts. Lines are gathered and written together every few milliseconds, so a busy gateway
 * makes one write per burst, not one per request.
 */
export class RequestLines {
  private pending: string[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly keyLabel: (id: string | null) => string | null,
    private readonly write: (text: string) => void = (text) => process.stderr.write(text),
    private readonly delayMs = 20,
  ) {}

  record(entry: RequestLogEntry): void {
    const key = this.keyLabel(entry.key_id);
    const level = entry.status >= 500 ? 'error' : entry.status >= 400 ? 'warn' : 'info';
    this.pending.push(
      JSON.stringify({
        time: entry.time,
        level,
        msg: 'request',
        request_id: entry.request_id,
        key,
        key_id: entry.key_id,
        account: entry.account,
        endpoint: entry.endpoint,
        model: entry.model,
        provider: entry.provider,
        status: entry.status,
        error_code: entry.error_code,
        latency_ms: entry.latency_ms,
        eur: entry.eur,
      }),
    );
    if (isUpstreamFailure(entry.error_code)) {
      this.pending.push(
        JSON.stringify({ time: entry.time, level: 'error', msg: 'upstream failure', code: entry.error_code, status: entry.status, request_id: entry.request_id, key, model: entry.model, provider: entry.provider, route: entry.route }),
      );
    }
    this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const text = `${this.pending.join('\n')}\n`;
    this.pending = [];
    this.write(text);
  }
}
