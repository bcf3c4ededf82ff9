import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { BatchedAppender } from './batched-appender.js';

/** One line of the append-only request log (DESIGN §4). Money as decimal strings. */
export interface RequestLogEntry {
  time: string;
  request_id: string;
  key_id: string | null;
  account: string | null;
  endpoint: string;
  model: string | null;
  provider: string | null;
  route: string | null;
  status: number;
  error_code: string | null;
  latency_ms: number;
  input_tokens: number;
  output_tokens: number;
  eur: string;
  energy: string;
  paid_with: string | null;
  energy_kwh: number;
  carbon_g_co2: number;
  stream: boolean;
  /** DESIGN §5: request fields dropped while translating (also in the igw-ignored-params header); absent when none. */
  ignored_params?: string[];
  /** Set on lines that are not API requests: `storage` = a daily vector-store storage charge or a removal for unpaid storage. */
  kind?: 'storage';
  /** Storage lines: the UTC day charged and its time-weighted size in GB-days (decimal string). */
  storage_day?: string;
  storage_gb_days?: string;
}

/**
 * Append-only JSONL per UTC day under logs/: lines are batched (one write per few ms), never
 * awaited on the request path, and flushed at shutdown.
 */
export class RequestLog {
  private appender: BatchedAppender | null = null;
  private day = '';
  /** The last day rotation: the previous day's file is complete once it settles. */
  private switched: Promise<void> = Promise.resolve();

  constructor(private readonly folder: string) {}

  private fileFor(day: string): string {
    return path.join(this.folder, `requests-${day}.jsonl`);
  }

  append(entry: RequestLogEntry): void {
    if (this.appender !== null && entry.time.startsWith(this.day)) {
      this.appender.appendLine(JSON.stringify(entry));
      return;
    }
    const day = entry.time.slice(0, 10);
    if (this.appender === null) {
      this.day = day;
      this.appender = new BatchedAppender(this.fileFor(day), 20, (error) =>
        process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'request log write failed', error: String(error) })}\n`),
      );
    } else if (day !== this.day) {
      this.day = day;
      this.switched = this.appender.switchTo(this.fileFor(day));
    }
    this.appender.appendLine(JSON.stringify(entry));
  }

  async flush(): Promise<void> {
    await Promise.all([this.switched, this.appender?.flush()]);
  }

  async close(): Promise<void> {
    await Promise.all([this.switched, this.appender?.close()]);
  }

  async readSince(since: number): Promise<RequestLogEntry[]> {
    await this.flush();
    return readRequestLog(this.folder, since);
  }
}

/** Read side for `igw usage` and the dashboard: entries at or after `since` (ms). */
export async function readRequestLog(folder: string, since: number): Promise<RequestLogEntry[]> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const sinceDay = new Date(since).toISOString().slice(0, 10);
  const entries: RequestLogEntry[] = [];
  for (const name of names.sort()) {
    const match = /^requests-(\d{4}-\d{2}-\d{2})\.jsonl$/.exec(name);
    if (match === null || match[1]! < sinceDay) continue;
    const text = await readFile(path.join(folder, name), 'utf8');
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const entry = JSON.parse(line) as RequestLogEntry;
        if (Date.parse(entry.time) >= since) entries.push(entry);
      } catch {
        // torn last line after a crash: skip it
      }
    }
  }
  return entries;
}
