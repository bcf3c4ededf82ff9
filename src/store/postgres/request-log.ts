import type pg from 'pg';
import type { RequestLogEntry } from '../request-log.js';
import type { RequestLogPort } from '../repositories.js';

/** Lines are written together: one INSERT per this many, or per tick, whichever comes first. */
const BATCH_LINES = 500;
const BATCH_MS = 100;

/**
 * Columns as arrays, each line as its own JSON text: PostgreSQL's JSON functions refuse a line
 * holding U+0000 (a client may send it, e.g. in a field name the log names), the json type keeps it.
 */
const INSERT = `INSERT INTO igw_request_log (time, request_id, endpoint, entry)
  SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::json[])`;

/**
 * The request log as a table (team mode, DESIGN §4). `append` never waits: lines are buffered and
 * written in batches off the hot path; close writes what is left.
 */
export class PostgresRequestLog implements RequestLogPort {
  private buffer: RequestLogEntry[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly onError: (error: unknown) => void,
  ) {}

  append(entry: RequestLogEntry): void {
    this.buffer.push(entry);
    if (this.buffer.length >= BATCH_LINES) void this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(() => void this.flush(), BATCH_MS);
      this.timer.unref();
    }
  }

  flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const lines = this.buffer;
    this.buffer = [];
    if (lines.length > 0) {
      this.writing = this.writing.then(() => insertRequestLines(this.pool, lines).then(() => undefined, this.onError));
    }
    return this.writing;
  }

  close(): Promise<void> {
    return this.flush();
  }

  async readSince(since: number): Promise<RequestLogEntry[]> {
    await this.flush();
    return readPostgresRequestLog(this.pool, since);
  }
}

export async function insertRequestLines(pool: pg.Pool | pg.Client, lines: readonly RequestLogEntry[]): Promise<number> {
  const result = await pool.query(INSERT, [lines.map((line) => line.time), lines.map((line) => line.request_id), lines.map((line) => line.endpoint), lines.map((line) => JSON.stringify(line))]);
  return result.rowCount ?? 0;
}

/** Read side for `igw usage` in team mode: every instance's lines at or after `since` (ms). */
export async function readPostgresRequestLog(pool: pg.Pool | pg.Client, since: number): Promise<RequestLogEntry[]> {
  const { rows } = await pool.query<{ entry: RequestLogEntry }>('SELECT entry FROM igw_request_log WHERE time >= $1 ORDER BY time, id', [new Date(since)]);
  return rows.map((row) => row.entry);
}

export async function readPostgresKeyNames(pool: pg.Pool | pg.Client): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ id: string; name: string }>('SELECT id, name FROM igw_keys');
  return new Map(rows.map((row) => [row.id, row.name]));
}
