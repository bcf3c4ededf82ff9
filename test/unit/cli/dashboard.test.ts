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

function frameOf(snapshot: ActivitySnapshot, color = false, stopping = false, rows = 60): string {
  const view = render(createElement(DashboardView, { info, snapshot, log, color, stopping, rows }));
  unmounts.push(view.unmount);
  return view.lastFrame() ?? '';
}

describe('DashboardView', () => {
  it('shows traffic, latency, errors by code, today, top models and keys, tasks, one line per request and the log', () => {
    const frame = frameOf(busyActivity().activity.snapshot());
    expect(frame).toContain('http://127.0.0.1:8787');
    expect(frame).toMatch(/3\.0 req\/s ·+█{10}/);
    expect(frame).toContain('p50 110 ms · p99 210 ms');
    expect(frame).toContain('34 since start');
    expect(frame).toContain('errors    1: AUTH_1028 1');
    expect(frame).toContain('today     34 requests (1 errors) · €8.5 · 850 units · 68 Wh · 17 g CO2');
    expect(frame).toContain('models    local-echo 33 · gpt-4o-mini 1');
    expect(frame).toContain('keys      key_live 33 · key_other 1');
    expect(frame).toContain('Batches and ingestions (1 running)');
    expect(frame).toMatch(/batch\s+rows\.jsonl .*50\/200, 2 failed · running/);
    expect(frame).toMatch(/ingestion notes\/ 0 done · failed · 0s · a\.md: unsupported type/);
    expect(frame).toMatch(/10:00:00 warn\s+upstream slow route=openai\/gpt-4o/);
    expect(frame).toMatch(/10:00:00 key_other\s+gpt-4o-mini\s+429\s+12 ms  AUTH_1028/);
    expect(frame).toMatch(/10:00:00 key_live\s+local-echo\s+200\s+210 ms  €0\.25/);
    expect(frame).toContain('q or Ctrl-C stops the gateway');
  });

  it('names keys instead of showing ids, in the rankings and the request lines', () => {
    const { activity } = busyActivity();
    activity.nameKeys((id) => (id === 'key_live' ? 'laptop' : undefined));
    const frame = frameOf(activity.snapshot());
    expect(frame).toContain('keys      laptop 33 · key_other 1');
    expect(frame).toMatch(/10:00:00 laptop\s+local-echo/);
    expect(frame).not.toMatch(/key_live/);
  });

  it('fits 80×24: never more lines than the terminal, the header first, the newest requests last', () => {
    const { activity } = busyActivity();
    for (let i = 0; i < 40; i += 1) activity.recordRequest(entry({ status: 502, error_code: 'INFERENCE_3105', model: `m${i}` }));
    const view = render(createElement(DashboardView, { info, snapshot: activity.snapshot(), log, color: false, rows: 24 }));
    unmounts.push(view.unmount);
    const lines = (view.lastFrame() ?? '').split('\n');
    expect(lines.length).toBeLessThanOrEqual(23);
    expect(lines[0]).toContain('igw http://127.0.0.1:8787');
    expect(lines.at(-2)).toMatch(/m39\s+502\s+12 ms  INFERENCE_3105/);
  });

  it('finished work shows its full progress (an ingestion that completed is 1/1)', () => {
    const activity = new Activity(() => T0);
    activity.startTask('ingestion', 'file-1', 'a.md → notes', { total: 1 }).end('completed');
    expect(frameOf(activity.snapshot())).toMatch(/ingestion a\.md → notes █+ 1\/1 · completed/);
  });

  it('an idle gateway: zeros, no errors, nothing running', () => {
    const view = render(createElement(DashboardView, { info, snapshot: new Activity(() => T0).snapshot(), log: [], color: false }));
    unmounts.push(view.unmount);
    const frame = view.lastFrame() ?? '';
    expect(frame).toContain('0.0 req/s');
    expect(frame).toContain('errors    none since start');
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
    expect(view.lastFrame()).toContain('34 since start');
    for (let i = 0; i < 5; i += 1) activity.recordRequest(entry());
    tail.logger.error('boom', { code: 1 });
    await waitFor(() => (view.lastFrame() ?? '').includes('39 since start') && /error boom code=1/.test(view.lastFrame() ?? ''));
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
