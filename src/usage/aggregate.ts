import { Decimal, formatDecimal } from '../billing/money.js';
import type { RequestLogEntry } from '../store/request-log.js';

export type UsageGrouping = 'model' | 'key' | 'day' | 'provider';

export interface UsageRow {
  group: string;
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  eur: string;
  energy: string;
  energy_kwh: number;
  carbon_g_co2: number;
}

function groupOf(entry: RequestLogEntry, by: UsageGrouping): string {
  switch (by) {
    case 'model':
      return entry.model ?? '(none)';
    case 'key':
      return entry.key_id ?? '(no key)';
    case 'day':
      return entry.time.slice(0, 10);
    case 'provider':
      return entry.provider ?? '(none)';
  }
}

/** Sums request-log entries per group; money summed exactly as decimals. Sorted by group name. */
export function aggregateUsage(entries: readonly RequestLogEntry[], by: UsageGrouping): { rows: UsageRow[]; total: UsageRow } {
  const groups = new Map<string, { row: UsageRow; eur: Decimal; energy: Decimal }>();
  const total = { row: emptyRow('total'), eur: new Decimal(0), energy: new Decimal(0) };
  for (const entry of entries) {
    const key = groupOf(entry, by);
    let group = groups.get(key);
    if (group === undefined) {
      group = { row: emptyRow(key), eur: new Decimal(0), energy: new Decimal(0) };
      groups.set(key, group);
    }
    for (const target of [group, total]) {
      target.row.requests += 1;
      if (entry.status >= 400) target.row.errors += 1;
      target.row.input_tokens += entry.input_tokens;
      target.row.output_tokens += entry.output_tokens;
      target.eur = target.eur.plus(entry.eur);
      target.energy = target.energy.plus(entry.energy);
      target.row.energy_kwh += entry.energy_kwh;
      target.row.carbon_g_co2 += entry.carbon_g_co2;
    }
  }
  const finish = (group: { row: UsageRow; eur: Decimal; energy: Decimal }): UsageRow => ({
    ...group.row,
    eur: formatDecimal(group.eur),
    energy: formatDecimal(group.energy),
    energy_kwh: Number(group.row.energy_kwh.toPrecision(12)),
    carbon_g_co2: Number(group.row.carbon_g_co2.toPrecision(12)),
  });
  return { rows: [...groups.values()].map(finish).sort((a, b) => a.group.localeCompare(b.group)), total: finish(total) };
}

function emptyRow(group: string): UsageRow {
  return { group, requests: 0, errors: 0, input_tokens: 0, output_tokens: 0, eur: '0', energy: '0', energy_kwh: 0, carbon_g_co2: 0 };
}
