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

export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  return stream.isTTY === true && process.env['NO_COLOR'] === undefined && process.env['TERM'] !== 'dumb';
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
