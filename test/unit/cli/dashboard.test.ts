import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { Activity, type ActivitySnapshot } from '../../../src/app/activity.js';
import { Dashboard, DashboardView } from '../../../src/cli/ui/dashboard.js';
import { LogTail, type LogLine } from '../../../src/cli/ui/log-tail.js';
import type { RequestLogEntry } from '../../../src/store/request-log.js';
import { waitFor } from '../../helpers/async.js';

const T0 = Date.parse('2026-01-10T10:00:00.000Z');
const info = { url: 'http://127.0.0.1:8787', dataDir: '/data/igw', config: 'built-in defaults' };

function entry(change: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    time: new Date(T0).toISOString(),
    request_id: 'req',
    key_id: 'key_live',
    account: 'default',
    endpoint: '/v1/chat/completions',
    model: 'local-echo',
    provider: 'local',
    route: null,
    status: 200,
    error_code: null,
    latency_ms: 12,
    input_tokens: 1,
    output_tokens: 1,
    eur: '0.25',
    energy: '25',
    paid_with: 'energy',
    energy_kwh: 0.002,
    carbon_g_co2: 0.5,
    stream: false,
    ...change,
  };
}

function busyActivity(): { activity: Activity; advance(ms: number): void } {
  let now = T0;
  const activity = new Activity(() => now);
  for (let second = 0; second < 11; second += 1) {
    for (let i = 0; i < 3; i += 1) activity.recordRequest(entry({ latency_ms: 10 + i * 100 }));
    now += 1000;
  }
  activity.recordRequest(entry({ model: 'gpt-4o-mini', key_id: 'key_other', status: 429, error_code: 'AUTH_1028' }));
  const batch = activity.startTask('batch', 'batch_abc', 'rows.jsonl', { total: 200 });
  batch.progress({ done: 50, failed: 2 });
  activity.startTask('ingestion', 'vs_1', 'notes/', { detail: 'a.md' }).end('failed', 'a.md: unsupported type');
  return { activity, advance: (ms) => (now += ms) };
}

const log: LogLine[] = [{ time: T0, level: 'warn', msg: 'upstream slow', fields: { route: 'openai/gpt-4o' } }];

let unmounts: Array<() => void> = [];
afterEach(() => {
  for (const unmount of unmounts) unmount();
  unmounts = [];
});

function frameOf(snapshot: ActivitySnapshot, color = false, stopping = false): string {
  const view = render(createElement(DashboardView, { info, snapshot, log, color, stopping }));
  unmounts.push(view.unmount);
  return view.lastFrame() ?? '';
}

describe('DashboardView', () => {
  it('shows traffic, latency, errors by code, today, top models and keys, tasks and the log', () => {
    const frame = frameOf(busyActivity().activity.snapshot());
    expect(frame).toContain('http://127.0.0.1:8787');
    expect(frame).toMatch(/requests\/s\s+3\.0/);
    expect(frame).toMatch(/p50\s+110 ms/);
    expect(frame).toMatch(/p99\s+210 ms/);
    expect(frame).toMatch(/AUTH_1028\s+1/);
    expect(frame).toMatch(/total\s+1\n/);
    expect(frame).toMatch(/last 20 s\s+·+█{10}/);
    expect(frame).toMatch(/requests\s+34 \(1 errors\)/);
    expect(frame).toMatch(/spend\s+€8\.5/);
    expect(frame).toMatch(/energy\s+850 units/);
    expect(frame).toMatch(/electricity\s+68 Wh/);
    expect(frame).toMatch(/CO2\s+17 g/);
    expect(frame).toMatch(/local-echo\s+33 req/);
    expect(frame).toMatch(/key_live\s+33 req/);
    expect(frame).toMatch(/gpt-4o-mini\s+1 req/);
    expect(frame).toContain('Batches and ingestions (1 running)');
    expect(frame).toMatch(/batch\s+rows\.jsonl .*50\/200, 2 failed · running/);
    expect(frame).toMatch(/ingestion notes\/ 0 done · failed · 0s · a\.md: unsupported type/);
    expect(frame).toMatch(/10:00:00 warn\s+upstream slow route=openai\/gpt-4o/);
    expect(frame).toContain('q or Ctrl-C stops the gateway');
  });

  it('an idle gateway: zeros, no errors, nothing running', () => {
    const frame = frameOf(new Activity(() => T0).snapshot());
    expect(frame).toMatch(/requests\/s\s+0\.0/);
    expect(frame).toMatch(/Errors since start\s*\n.*none/);
    expect(frame).toContain('no requests yet');
    expect(frame).toContain('nothing running');
  });

  it('says it is stopping once asked to quit', () => {
    expect(frameOf(new Activity(() => T0).snapshot(), false, true)).toContain('stopping: finishing in-flight requests');
  });
});

describe('Dashboard', () => {
  it('refreshes from the activity on its timer', async () => {
    const { activity } = busyActivity();
    const tail = new LogTail();
    const view = render(createElement(Dashboard, { info, activity, recentLog: (count: number) => tail.recent(count), color: false, onQuit: () => undefined, refreshMs: 20 }));
    unmounts.push(view.unmount);
    expect(view.lastFrame()).toMatch(/since start\s+34 requests/);
    for (let i = 0; i < 5; i += 1) activity.recordRequest(entry());
    tail.logger.error('boom', { code: 1 });
    await waitFor(() => /since start\s+39 requests/.test(view.lastFrame() ?? '') && /error boom code=1/.test(view.lastFrame() ?? ''));
  });

  it.each(['q', '\u0003'])('key %j calls onQuit once and shows the stopping line', async (key) => {
    let quits = 0;
    const view = render(createElement(Dashboard, { info, activity: new Activity(), recentLog: () => [], color: false, onQuit: () => (quits += 1), refreshMs: 1000 }));
    unmounts.push(view.unmount);
    await new Promise((resolve) => setTimeout(resolve, 20));
    view.stdin.write(key);
    await waitFor(() => quits === 1 && (view.lastFrame() ?? '').includes('stopping'));
    view.stdin.write('q');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(quits).toBe(1);
  });
});

describe('LogTail', () => {
  it('keeps the last lines while the dashboard runs, then writes JSON to stderr; replay on failed start', () => {
    const written: string[] = [];
    const tail = new LogTail(2, (line) => written.push(line));
    tail.logger.info('one');
    tail.logger.warn('two');
    tail.logger.error('three', { x: 1 });
    expect(tail.recent(5).map((line) => line.msg)).toEqual(['two', 'three']);
    expect(written).toEqual([]);
    tail.release(true);
    tail.logger.info('after');
    expect(written.map((line) => JSON.parse(line).msg)).toEqual(['two', 'three', 'after']);
    expect(JSON.parse(written[1]!)).toMatchObject({ level: 'error', x: 1 });
  });
});
