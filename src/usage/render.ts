import { plainStyle, type Style } from '../cli/ui/style.js';
import type { UsageGrouping, UsageRow } from './aggregate.js';
import { formatAmount, formatCo2, formatCount, formatKwh, formatMs } from './format.js';
import { bar, sparkline } from './sparkline.js';

export interface UsageTableOptions {
  by: UsageGrouping;
  /** Draw the per-day column (sparkline per row; a bar per day for --by day): terminals only. */
  chart: boolean;
  /** Days covered by each row's `daily` (for the column header). */
  dayCount?: number;
  style?: Style;
}

interface Column {
  header: string;
  right: boolean;
  cell(row: UsageRow, rows: readonly UsageRow[]): string;
}

const COLUMNS: Column[] = [
  { header: 'REQUESTS', right: true, cell: (row) => formatCount(row.requests) },
  { header: 'ERRORS', right: true, cell: (row) => formatCount(row.errors) },
  { header: 'IN TOKENS', right: true, cell: (row) => formatCount(row.input_tokens) },
  { header: 'OUT TOKENS', right: true, cell: (row) => formatCount(row.output_tokens) },
  { header: 'EUR', right: true, cell: (row) => formatAmount(row.eur) },
  { header: 'ENERGY', right: true, cell: (row) => formatAmount(row.energy) },
  { header: 'ELECTRICITY', right: true, cell: (row) => formatKwh(row.energy_kwh) },
  { header: 'CO2', right: true, cell: (row) => formatCo2(row.carbon_g_co2) },
  { header: 'P50 MS', right: true, cell: (row) => (row.requests === 0 ? '-' : formatMs(row.latency_p50_ms)) },
  { header: 'P99 MS', right: true, cell: (row) => (row.requests === 0 ? '-' : formatMs(row.latency_p99_ms)) },
];

/**
 * The `igw usage` table: one row per group, a rule, then the total (always the last line).
 * Numbers are right-aligned with thousands separators; energy and CO2 carry SI units.
 */
export function renderUsageTable(rows: readonly UsageRow[], total: UsageRow, options: UsageTableOptions): string {
  const style = options.style ?? plainStyle;
  // Keys by name (their ids, which nobody remembers, in a column of their own).
  const leading: Column[] =
    options.by === 'key'
      ? [
          { header: 'KEY', right: false, cell: (row) => (row === total ? row.group : row.name === null || row.name === undefined ? (row.group === '(no key)' ? row.group : '(unknown key)') : row.name === '' ? '(unnamed)' : row.name) },
          { header: 'KEY ID', right: false, cell: (row) => (row === total || row.group === '(no key)' ? '' : row.group) },
        ]
      : [{ header: options.by.toUpperCase(), right: false, cell: (row) => row.group }];
  const columns: Column[] = [...leading, ...COLUMNS];
  if (options.chart) {
    if (options.by === 'day') {
      const max = Math.max(0, ...rows.map((row) => row.requests));
      columns.push({ header: 'REQUESTS/DAY', right: false, cell: (row) => (row === total ? '' : bar(row.requests, max, 24)) });
    } else {
      columns.push({ header: `PER DAY (${options.dayCount ?? 0}d)`, right: false, cell: (row) => sparkline(row.daily ?? []) });
    }
  }
  const body = [...rows, total].map((row) => columns.map((column) => column.cell(row, rows)));
  const headers = columns.map((column) => column.header);
  const widths = headers.map((header, index) => Math.max(header.length, ...body.map((cells) => cells[index]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, index) => (columns[index]!.right ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  const lines = [style.bold(line(headers)), ...body.slice(0, -1).map(line)];
  if (rows.length > 0) lines.push(style.dim(rule));
  lines.push(style.bold(line(body.at(-1)!)));
  return lines.join('\n');
}
