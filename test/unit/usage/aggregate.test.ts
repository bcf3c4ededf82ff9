import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../../src/store/request-log.js';
import { aggregateUsage, daysBetween, type UsageGrouping } from '../../../src/usage/aggregate.js';

function entry(change: Partial<RequestLogEntry>): RequestLogEntry {
  return {
    time: '2026-01-10T10:00:00.000Z',
    request_id: 'req',
    key_id: 'key_a',
    account: 'default',
    endpoint: '/v1/chat/completions',
    model: 'gpt-4o-mini',
    provider: 'openai',
    route: 'openai/gpt-4o-mini',
    status: 200,
    error_code: null,
    latency_ms: 10,
    input_tokens: 0,
    output_tokens: 0,
    eur: '0',
    energy: '0',
    paid_with: 'energy',
    energy_kwh: 0,
    carbon_g_co2: 0,
    stream: false,
    ...change,
  };
}

const entries: RequestLogEntry[] = [
  entry({ time: '2026-01-10T10:00:00.000Z', key_id: 'key_a', model: 'gpt-4o-mini', provider: 'openai', input_tokens: 10, output_tokens: 5, eur: '0.1', energy: '100', energy_kwh: 0.1, carbon_g_co2: 0.2 }),
  entry({ time: '2026-01-10T23:59:59.999Z', key_id: 'key_b', model: 'gpt-4o-mini', provider: 'azure', input_tokens: 20, output_tokens: 1, eur: '0.2', energy: '200', energy_kwh: 0.2, carbon_g_co2: 0.1 }),
  entry({ time: '2026-01-11T00:00:00.000Z', key_id: 'key_a', model: 'local-echo', provider: 'local', input_tokens: 3, output_tokens: 3, eur: '0', energy: '0' }),
  entry({ time: '2026-01-11T08:00:00.000Z', key_id: 'key_a', model: 'gpt-4o-mini', provider: 'openai', status: 502, error_code: 'INFERENCE_3103', eur: '0', energy: '0' }),
  entry({ time: '2026-01-12T08:00:00.000Z', key_id: null, model: null, provider: null, status: 401, error_code: 'AUTH_1007', endpoint: '/v1/models' }),
  entry({ time: '2026-01-12T09:00:00.000Z', key_id: 'key_b', model: 'local-embed', provider: 'local', status: 429, error_code: 'AUTH_1028' }),
];

describe('aggregateUsage', () => {
  it.each<{ by: UsageGrouping; groups: Array<{ group: string; requests: number; errors: number; input_tokens?: number; output_tokens?: number; eur?: string; energy?: string }> }>([
    {
      by: 'model',
      groups: [
        { group: '(none)', requests: 1, errors: 1 },
        { group: 'gpt-4o-mini', requests: 3, errors: 1, input_tokens: 30, output_tokens: 6, eur: '0.3', energy: '300' },
        { group: 'local-echo', requests: 1, errors: 0, input_tokens: 3, output_tokens: 3, eur: '0', energy: '0' },
        { group: 'local-embed', requests: 1, errors: 1 },
      ],
    },
    {
      by: 'key',
      groups: [
        { group: '(no key)', requests: 1, errors: 1 },
        { group: 'key_a', requests: 3, errors: 1, input_tokens: 13, output_tokens: 8, eur: '0.1', energy: '100' },
        { group: 'key_b', requests: 2, errors: 1, input_tokens: 20, output_tokens: 1, eur: '0.2', energy: '200' },
      ],
    },
    {
      by: 'day',
      groups: [
        { group: '2026-01-10', requests: 2, errors: 0, input_tokens: 30, output_tokens: 6, eur: '0.3', energy: '300' },
        { group: '2026-01-11', requests: 2, errors: 1, input_tokens: 3, output_tokens: 3 },
        { group: '2026-01-12', requests: 2, errors: 2 },
      ],
    },
    {
      by: 'provider',
      groups: [
        { group: '(none)', requests: 1, errors: 1 },
        { group: 'azure', requests: 1, errors: 0, eur: '0.2' },
        { group: 'local', requests: 2, errors: 1 },
        { group: 'openai', requests: 2, errors: 1, eur: '0.1' },
      ],
    },
  ])('groups by $by, sorted by group name', ({ by, groups }) => {
    const { rows, total } = aggregateUsage(entries, by);
    expect(rows.map((row) => row.group)).toEqual(groups.map((group) => group.group));
    groups.forEach((group, index) => expect(rows[index]).toMatchObject(group));
    expect(total).toMatchObject({ group: 'total', requests: 6, errors: 3, input_tokens: 33, output_tokens: 9, eur: '0.3', energy: '300' });
    expect(rows.reduce((sum, row) => sum + row.requests, 0)).toBe(total.requests);
  });

  it('sums money exactly (no 0.1 + 0.2 drift)', () => {
    const many = Array.from({ length: 10 }, () => entry({ eur: '0.1', energy: '0.2' }));
    const { total, rows } = aggregateUsage([...many, entry({ eur: '0.2', energy: '0.1' })], 'model');
    expect(total.eur).toBe('1.2');
    expect(total.energy).toBe('2.1');
    expect(rows[0]!.eur).toBe('1.2');
  });

  it.each<{ amounts: string[]; expected: string }>([
    { amounts: ['0.1', '0.2'], expected: '0.3' },
    { amounts: ['0.00000553', '0.00000447'], expected: '0.00001' },
    { amounts: ['1e-7', '2e-7'], expected: '0.0000003' },
    { amounts: ['5', '-5'], expected: '0' },
    { amounts: ['12345.123456789', '0.000000000001'], expected: '12345.123456789001' },
  ])('$amounts sum to $expected', ({ amounts, expected }) => {
    expect(aggregateUsage(amounts.map((eur) => entry({ eur })), 'day').total.eur).toBe(expected);
  });

  it('tidies float sums of kWh and carbon to 12 significant digits', () => {
    const { total } = aggregateUsage([entry({ energy_kwh: 0.1, carbon_g_co2: 0.1 }), entry({ energy_kwh: 0.2, carbon_g_co2: 0.2 })], 'model');
    expect(total.energy_kwh).toBe(0.3);
    expect(total.carbon_g_co2).toBe(0.3);
  });

  it.each<{ status: number; error: boolean }>([
    { status: 200, error: false },
    { status: 299, error: false },
    { status: 399, error: false },
    { status: 400, error: true },
    { status: 402, error: true },
    { status: 503, error: true },
  ])('status $status counts as an error: $error', ({ status, error }) => {
    expect(aggregateUsage([entry({ status })], 'model').total.errors).toBe(error ? 1 : 0);
  });

  it('no entries: no rows, a zero total', () => {
    expect(aggregateUsage([], 'model')).toEqual({
      rows: [],
      total: { group: 'total', requests: 0, errors: 0, input_tokens: 0, output_tokens: 0, eur: '0', energy: '0', energy_kwh: 0, carbon_g_co2: 0, latency_p50_ms: 0, latency_p99_ms: 0 },
    });
  });

  it('p50 and p99 latency per group (nearest rank)', () => {
    const many = Array.from({ length: 100 }, (_, index) => entry({ latency_ms: index + 1 }));
    const { total } = aggregateUsage(many.reverse(), 'model');
    expect(total.latency_p50_ms).toBe(50);
    expect(total.latency_p99_ms).toBe(99);
  });

  it('counts requests per day of the window when days are given, oldest first', () => {
    const days = ['2026-01-09', '2026-01-10', '2026-01-11', '2026-01-12'];
    const { rows, total } = aggregateUsage(entries, 'model', { days });
    expect(total.daily).toEqual([0, 2, 2, 2]);
    expect(rows.find((row) => row.group === 'gpt-4o-mini')!.daily).toEqual([0, 2, 1, 0]);
  });

  it('has no daily series unless asked', () => {
    expect(aggregateUsage(entries, 'model').total.daily).toBeUndefined();
  });

  it('counts storage lines (daily charge, removal) in EUR, not as requests, errors or latency', () => {
    const storage = { kind: 'storage' as const, key_id: null, model: null, provider: null, route: null, latency_ms: 0, paid_with: 'credits' };
    const withStorage = [
      entry({ time: '2026-01-10T10:00:00.000Z', eur: '0.5', latency_ms: 40 }),
      entry({ ...storage, time: '2026-01-10T00:00:00.000Z', endpoint: '/v1/vector_stores (storage)', eur: '0.25', storage_day: '2026-01-09', storage_gb_days: '3.5' }),
      entry({ ...storage, time: '2026-01-10T00:00:00.000Z', endpoint: '/v1/vector_stores (storage unpaid: stores removed)', status: 402, error_code: 'BILLING_2003' }),
    ];
    const { rows, total } = aggregateUsage(withStorage, 'model', { days: ['2026-01-10'] });
    expect(total).toMatchObject({ requests: 1, errors: 0, eur: '0.75', latency_p50_ms: 40, daily: [1] });
    expect(rows.map((row) => [row.group, row.requests, row.eur])).toEqual([
      ['(vector store storage)', 0, '0.25'],
      ['gpt-4o-mini', 1, '0.5'],
    ]);
  });
});

describe('daysBetween', () => {
  it.each<{ since: string; until: string; days: string[] }>([
    { since: '2026-01-10T10:00:00Z', until: '2026-01-10T11:00:00Z', days: ['2026-01-10'] },
    { since: '2026-01-10T23:00:00Z', until: '2026-01-12T01:00:00Z', days: ['2026-01-10', '2026-01-11', '2026-01-12'] },
    { since: '2026-02-27T00:00:00Z', until: '2026-03-01T00:00:00Z', days: ['2026-02-27', '2026-02-28', '2026-03-01'] },
  ])('$since .. $until', ({ since, until, days }) => {
    expect(daysBetween(Date.parse(since), Date.parse(until))).toEqual(days);
  });
});
