import type { Logger } from '../../util/logger.js';

export interface LogLine {
  time: number;
  level: 'info' | 'warn' | 'error';
  msg: string;
  fields?: Record<string, unknown>;
}

/**
 * While the dashboard owns the terminal, log lines cannot go to stderr (they would tear the
 * frame): they are kept here, the last few shown in the dashboard. Once the dashboard is gone,
 * `release()` sends every later line to stderr as JSON again, as in plain mode.
 */
export class LogTail {
  private readonly kept: LogLine[] = [];
  private released = false;

  constructor(
    private readonly capacity = 50,
    private readonly writeJson: (line: string) => void = (line) => process.stderr.write(line),
  ) {}

  readonly logger: Logger = {
    info: (msg, fields) => this.push({ time: Date.now(), level: 'info', msg, ...(fields === undefined ? {} : { fields }) }),
    warn: (msg, fields) => this.push({ time: Date.now(), level: 'warn', msg, ...(fields === undefined ? {} : { fields }) }),
    error: (msg, fields) => this.push({ time: Date.now(), level: 'error', msg, ...(fields === undefined ? {} : { fields }) }),
  };

  private push(line: LogLine): void {
    if (this.released) {
      this.writeJson(`${JSON.stringify({ time: new Date(line.time).toISOString(), level: line.level, msg: line.msg, ...line.fields })}\n`);
      return;
    }
    this.kept.push(line);
    if (this.kept.length > this.capacity) this.kept.shift();
  }

  /** The most recent `count` lines, oldest first. */
  recent(count: number): LogLine[] {
    return this.kept.slice(-count);
  }

  /** From now on lines go to stderr; `replay` first writes the kept ones (a start-up that failed). */
  release(replay = false): void {
    if (this.released) return;
    this.released = true;
    if (replay) for (const line of this.kept.splice(0)) this.push(line);
  }
}

/** `10:00:01 warn  upstream slow route=openai/gpt-4o` — one short line for the dashboard. */
export function formatLogLine(line: LogLine): string {
  const fields = Object.entries(line.fields ?? {})
    .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${new Date(line.time).toISOString().slice(11, 19)} ${line.level.padEnd(5)} ${line.msg}${fields === '' ? '' : ` ${fields}`}`;
}
