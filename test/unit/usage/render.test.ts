import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../../src/store/request-log.js';
import { aggregateUsage } from '../../../src/usage/aggregate.js';
import { renderUsageTable } from '../../../src/usage/render.js';

function entry(time: string, model: string, latency: number): RequestLogEntry {
  return {
    time,
    request_id: 'req',
    key_id: 'key_a',
    account: 'default',
    endpoint: '/v1/chat/completions',
    model,
    provider: 'local',
    route: null,
    status: 200,
    error_code: null,
    latency_ms: latency,
    input_tokens: 1200,
    output_tokens: 30,
    eur: '0.00012',
    energy: '0.012',
    paid_with: 'energy',
    energy_kwh: 0.000002,
    carbon_g_co2: 0.0007,
    stream: false,
  };
}

const days = ['2026-01-10', '2026-01-11', '2026-01-12'];
const entries = [
  entry('2026-01-10T10:00:00Z', 'alpha', 10),
  entry('2026-01-12T10:00:00Z', 'alpha', 30),
  entry('2026-01-12T11:00:00Z', 'alpha', 20),
  entry('2026-01-11T10:00:00Z', 'beta-long-name', 5),
];

describe('renderUsageTable', () => {
  it('plain: header, rows, a rule, the total last; numbers right-aligned with units', () => {
    const { rows, total } = aggregateUsage(entries, 'model');
    const lines = renderUsageTable(rows, total, { by: 'model', chart: false }).split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^MODEL\s+REQUESTS\s+ERRORS\s+IN TOKENS\s+OUT TOKENS\s+EUR\s+ENERGY\s+ELECTRICITY\s+CO2\s+P50 MS\s+P99 MS$/);
    expect(lines[1]).toMatch(/^alpha\s+3\s+0\s+3,600\s+90\s+0\.00036\s+0\.036\s+6 mWh\s+2\.1 mg\s+20\s+30$/);
    expect(lines[3]).toMatch(/^-+( +-+)+$/);
    expect(lines[4]).toMatch(/^total\s+4\s/);
    // right alignment: every REQUESTS cell ends in the same column as its header
    const end = lines[0]!.indexOf('REQUESTS') + 'REQUESTS'.length;
    for (const line of [lines[1]!, lines[2]!, lines[4]!]) expect(line[end - 1]).toMatch(/\d/);
    expect(lines.join('\n')).not.toContain('\u001B[');
  });

  it('chart: a sparkline of requests per day for each row', () => {
    const { rows, total } = aggregateUsage(entries, 'model', { days });
    const lines = renderUsageTable(rows, total, { by: 'model', chart: true, dayCount: 3 }).split('\n');
    expect(lines[0]).toMatch(/PER DAY \(3d\)$/);
    expect(lines[1]).toMatch(/▅ █$/);
    expect(lines[2]).toMatch(/ █ *$/);
    expect(lines[4]).toMatch(/[▁-█]{3}$/);
  });

  it('chart --by day: a bar per day, none on the total', () => {
    const { rows, total } = aggregateUsage(entries, 'day', { days });
    const lines = renderUsageTable(rows, total, { by: 'day', chart: true, dayCount: 3 }).split('\n');
    expect(lines[0]).toMatch(/REQUESTS\/DAY$/);
    expect(lines[3]).toMatch(/^2026-01-12.*█{24}$/);
    expect(lines[1]).toMatch(/^2026-01-10.*█{12}$/);
    expect(lines.at(-1)).not.toContain('█');
  });

  it('no rows: header and a zero total, no rule', () => {
    const { rows, total } = aggregateUsage([], 'key');
    const lines = renderUsageTable(rows, total, { by: 'key', chart: false }).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^total\s+0\s+0\s+0\s+0\s+0\s+0\s+0 Wh\s+0 g\s+-\s+-$/);
  });
});
