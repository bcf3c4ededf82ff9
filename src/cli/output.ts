import { colorEnabled } from './ui/terminal.js';

/** Two channels (ARCHITECTURE principle 9): results on stdout, everything else on stderr. */
export function printResult(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** `--json`: exactly one JSON document on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printInfo(text: string): void {
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Colour only on a terminal and never under NO_COLOR (one rule for every command: ui/terminal.ts). */
export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  return stream.isTTY === true && colorEnabled() && process.env['TERM'] !== 'dumb';
}

/** A plain left-aligned text table (no colour needed to read it). */
export function renderTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

export function formatTime(unixSeconds: number | null): string {
  return unixSeconds === null ? '-' : new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');
}
