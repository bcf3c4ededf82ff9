import { Decimal, formatDecimal } from '../billing/money.js';
import type { RequestLogEntry } from '../store/request-log.js';
import { percentile } from './percentile.js';

export type UsageGrouping = 'model' | 'key' | 'day' | 'provider';
export const USAGE_GROUPINGS: readonly UsageGrouping[] = ['model', 'key', 'day', 'provider'];

export interface UsageRow {
  group: string;
  /** `--by key`: the key's name ('' when it has none; null for requests without a key or a key no longer listed). */
  name?: string | null;
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  eur: string;
  energy: string;
  energy_kwh: number;
  carbon_g_co2: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  /** Requests per UTC day of the report window, oldest first (only when days were asked for). */
  daily?: number[];
}

export interface UsageReportOptions {
  /** UTC days (YYYY-MM-DD, ascending) to count requests per row for; omitted: no `daily`. */
  days?: readonly string[];
  /** `--by key`: names by key id, put on each row as `name`. */
  keyNames?: ReadonlyMap<string, string>;
}

function groupOf(entry: RequestLogEntry, by: UsageGrouping): string {
  switch (by) {
    case 'model':
      return entry.model ?? (entry.kind === 'storage' ? '(vector store storage)' : '(none)');
    case 'key':
      return entry.key_id ?? '(no key)';
    case 'day':
      return entry.time.slice(0, 10);
    case 'provider':
      return entry.provider ?? '(none)';
  }
}

interface Accumulator {
  row: UsageRow;
  eur: Decimal;
  energy: Decimal;
  latencies: number[];
  daily: number[] | null;
}

function accumulator(group: string, dayCount: number | null): Accumulator {
  return { row: emptyRow(group), eur: new Decimal(0), energy: new Decimal(0), latencies: [], daily: dayCount === null ? null : new Array<number>(dayCount).fill(0) };
}

/** Sums request-log entries per group; money summed exactly as decimals. Sorted by group name. */
export function aggregateUsage(entries: readonly RequestLogEntry[], by: UsageGrouping, options: UsageReportOptions = {}): { rows: UsageRow[]; total: UsageRow } {
  const dayIndex = options.days === undefined ? null : new Map(options.days.map((day, index) => [day, index]));
  const dayCount = options.days?.length ?? null;
  const groups = new Map<string, Accumulator>();
  const total = accumulator('total', dayCount);
  for (const entry of entries) {
    const key = groupOf(entry, by);
    let group = groups.get(key);
    if (group === undefined) {
      group = accumulator(key, dayCount);
      groups.set(key, group);
    }
    const day = dayIndex?.get(entry.time.slice(0, 10));
    // Storage lines carry money, not a request: they count in EUR, not in requests or latency.
    const request = entry.kind !== 'storage';
    for (const target of [group, total]) {
      if (request) target.row.requests += 1;
      if (request && entry.status >= 400) target.row.errors += 1;
      target.row.input_tokens += entry.input_tokens;
      target.row.output_tokens += entry.output_tokens;
      target.eur = target.eur.plus(entry.eur);
      target.energy = target.energy.plus(entry.energy);
      target.row.energy_kwh += entry.energy_kwh;
      target.row.carbon_g_co2 += entry.carbon_g_co2;
      if (request) target.latencies.push(entry.latency_ms);
      if (request && day !== undefined && target.daily !== null) target.daily[day]! += 1;
    }
  }
  const finish = (group: Accumulator): UsageRow => {
    const sorted = group.latencies.sort((a, b) => a - b);
    return {
      ...group.row,
      eur: formatDecimal(group.eur),
      energy: formatDecimal(group.energy),
      energy_kwh: Number(group.row.energy_kwh.toPrecision(12)),
      carbon_g_co2: Number(group.row.carbon_g_co2.toPrecision(12)),
      latency_p50_ms: percentile(sorted, 50),
      latency_p99_ms: percentile(sorted, 99),
      ...(group.daily === null ? {} : { daily: group.daily }),
    };
  };
  const named = (row: UsageRow): UsageRow => (by === 'key' ? { group: row.group, name: options.keyNames?.get(row.group) ?? null, ...withoutGroup(row) } : row);
  return { rows: [...groups.values()].map(finish).map(named).sort((a, b) => a.group.localeCompare(b.group)), total: finish(total) };
}

function withoutGroup(row: UsageRow): Omit<UsageRow, 'group'> {
  const { group: _group, ...rest } = row;
  return rest;
}

/** The UTC days from `since` (ms) to `until` (ms) inclusive, oldest first. */
export function daysBetween(since: number, until: number): string[] {
  const days: string[] = [];
  const start = new Date(new Date(since).toISOString().slice(0, 10)).getTime();
  for (let time = start; time <= until; time += 86_400_000) days.push(new Date(time).toISOString().slice(0, 10));
  return days;
}

function emptyRow(group: string): UsageRow {
  return { group, requests: 0, errors: 0, input_tokens: 0, output_tokens: 0, eur: '0', energy: '0', energy_kwh: 0, carbon_g_co2: 0, latency_p50_ms: 0, latency_p99_ms: 0 };
}
