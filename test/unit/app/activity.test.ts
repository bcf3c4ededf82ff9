import { describe, expect, it } from 'vitest';
import { Activity } from '../../../src/app/activity.js';
import type { RequestLogEntry } from '../../../src/store/request-log.js';

function entry(change: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    time: '2026-01-10T10:00:00.000Z',
    request_id: 'req',
    key_id: 'key_a',
    account: 'default',
    endpoint: '/v1/chat/completions',
    model: 'local-echo',
    provider: 'local',
    route: null,
    status: 200,
    error_code: null,
    latency_ms: 10,
    input_tokens: 1,
    output_tokens: 1,
    eur: '0.5',
    energy: '50',
    paid_with: 'energy',
    energy_kwh: 0.001,
    carbon_g_co2: 0.4,
    stream: false,
    ...change,
  };
}

const T0 = Date.parse('2026-01-10T10:00:00.000Z');

function clock(start = T0) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('Activity', () => {
  it('requests per second over the last 10 full seconds, and a 60 s series', () => {
    const time = clock();
    const activity = new Activity(time.now);
    for (let second = 0; second < 10; second += 1) {
      for (let i = 0; i < 5; i += 1) activity.recordRequest(entry());
      time.advance(1000);
    }
    const snapshot = activity.snapshot();
    expect(snapshot.requests_per_second).toBe(5);
    expect(snapshot.per_second).toHaveLength(60);
    expect(snapshot.per_second.slice(-11)).toEqual([5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 0]);
    expect(snapshot.total_requests).toBe(50);
    time.advance(120_000);
    expect(activity.snapshot().requests_per_second).toBe(0);
    expect(activity.snapshot().per_second.every((count) => count === 0)).toBe(true);
  });

  it('p50/p99 over the most recent 2048 latencies', () => {
    const activity = new Activity(clock().now);
    for (let i = 1; i <= 100; i += 1) activity.recordRequest(entry({ latency_ms: 101 - i }));
    expect(activity.snapshot()).toMatchObject({ latency_p50_ms: 50, latency_p99_ms: 99 });
    for (let i = 0; i < 2048; i += 1) activity.recordRequest(entry({ latency_ms: 7 }));
    expect(activity.snapshot()).toMatchObject({ latency_p50_ms: 7, latency_p99_ms: 7 });
  });

  it('errors by code (status when no code), most frequent first', () => {
    const activity = new Activity(clock().now);
    activity.recordRequest(entry({ status: 401, error_code: 'AUTH_1007' }));
    activity.recordRequest(entry({ status: 429, error_code: 'AUTH_1028' }));
    activity.recordRequest(entry({ status: 429, error_code: 'AUTH_1028' }));
    activity.recordRequest(entry({ status: 500, error_code: null }));
    activity.recordRequest(entry({ status: 200 }));
    expect(activity.snapshot().errors).toEqual([
      { code: 'AUTH_1028', count: 2 },
      { code: 'AUTH_1007', count: 1 },
      { code: 'HTTP 500', count: 1 },
    ]);
    expect(activity.snapshot().today.errors).toBe(4);
  });

  it('today: spend, energy, kWh, CO2 and top models/keys; reset at UTC midnight', () => {
    const time = clock(Date.parse('2026-01-10T23:59:58.000Z'));
    const activity = new Activity(time.now);
    activity.recordRequest(entry({ model: 'a', key_id: 'k1' }));
    activity.recordRequest(entry({ model: 'b', key_id: 'k1', eur: '0', energy: '0' }));
    activity.recordRequest(entry({ model: 'b', key_id: 'k2', status: 502, error_code: 'INFERENCE_3103' }));
    const snapshot = activity.snapshot();
    expect(snapshot.today).toMatchObject({ day: '2026-01-10', requests: 3, errors: 1, eur: 1, energy: 100 });
    expect(snapshot.today.energy_kwh).toBeCloseTo(0.003);
    expect(snapshot.today.carbon_g_co2).toBeCloseTo(1.2);
    expect(snapshot.top_models).toEqual([
      { name: 'b', requests: 2, errors: 1, eur: 0.5 },
      { name: 'a', requests: 1, errors: 0, eur: 0.5 },
    ]);
    expect(snapshot.top_keys.map((key) => key.name)).toEqual(['k1', 'k2']);
    time.advance(5000);
    expect(activity.snapshot().today).toMatchObject({ day: '2026-01-11', requests: 0, eur: 0 });
    expect(activity.snapshot().top_models).toEqual([]);
    activity.recordRequest(entry({ model: 'c' }));
    expect(activity.snapshot().today.requests).toBe(1);
    expect(activity.snapshot().top_models.map((model) => model.name)).toEqual(['c']);
  });

  it('seedToday counts earlier requests of the day once, not the ones this process saw', () => {
    const time = clock();
    const activity = new Activity(time.now);
    activity.recordRequest(entry({ time: new Date(T0).toISOString() }));
    activity.seedToday([
      entry({ time: '2026-01-10T09:00:00.000Z', model: 'old' }),
      entry({ time: '2026-01-09T09:00:00.000Z', model: 'yesterday' }),
      entry({ time: new Date(T0).toISOString(), model: 'mine' }),
    ]);
    const snapshot = activity.snapshot();
    expect(snapshot.today.requests).toBe(2);
    expect(snapshot.top_models.map((model) => model.name).sort()).toEqual(['local-echo', 'old']);
    expect(snapshot.total_requests).toBe(1);
  });

  it('tasks: running first, then the last five finished; updates after end are ignored', () => {
    const time = clock();
    const activity = new Activity(time.now);
    const batch = activity.startTask('batch', 'batch_1', 'rows.jsonl', { total: 10 });
    batch.progress({ done: 4, failed: 1 });
    expect(activity.snapshot().tasks).toEqual([
      { kind: 'batch', id: 'batch_1', label: 'rows.jsonl', status: 'running', done: 4, failed: 1, total: 10, detail: null, started_at: T0, ended_at: null },
    ]);
    const ingest = activity.startTask('ingestion', 'vs_1', 'docs');
    batch.end('completed');
    batch.progress({ done: 9 });
    batch.end('failed');
    const tasks = activity.snapshot().tasks;
    expect(tasks.map((task) => [task.id, task.status, task.done])).toEqual([
      ['vs_1', 'running', 0],
      // Completed means every unit is done: 9 done + 1 failed of 10, however far progress was reported.
      ['batch_1', 'completed', 9],
    ]);
    ingest.end('cancelled');
    for (let i = 0; i < 6; i += 1) activity.startTask('batch', `b${i}`, 'x').end('completed');
    expect(activity.snapshot().tasks).toHaveLength(5);
  });

  it('in flight comes from the server counter it watches', () => {
    const activity = new Activity(clock().now);
    expect(activity.snapshot().in_flight).toBe(0);
    let inFlight = 3;
    activity.watchInFlight(() => inFlight);
    expect(activity.snapshot().in_flight).toBe(3);
    inFlight = 0;
    expect(activity.snapshot().in_flight).toBe(0);
  });
});
