import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chat, cleanupAll, igw, igwJson, makeSandbox, startServer, type Sandbox } from '../helpers/cli.js';

interface UsageRow {
  group: string;
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  eur: string;
  energy: string;
}

interface UsageReport {
  since: string;
  by: string;
  rows: UsageRow[];
  total: UsageRow;
}

let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(cleanupAll);

/** Two keys, three chat requests (2 with the first key), then a clean stop so the log is flushed. */
async function traffic(): Promise<{ first: string; second: string }> {
  const first = await igwJson<{ id: string; key: string }>(sandbox, ['keys', 'create', '--json']);
  const second = await igwJson<{ id: string; key: string }>(sandbox, ['keys', 'create', '--json']);
  const server = await startServer(sandbox);
  expect((await chat(server.url, first.key)).status).toBe(200);
  expect((await chat(server.url, first.key, { model: 'local-echo', messages: [{ role: 'user', content: 'hello there' }] })).status).toBe(200);
  expect((await chat(server.url, second.key)).status).toBe(200);
  expect((await server.stop('SIGTERM')).exitCode).toBe(0);
  return { first: first.id, second: second.id };
}

describe('igw usage', () => {
  it('--json groups by model with requests counted', async () => {
    await traffic();
    const result = await igw(sandbox, ['usage', '--json']);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe('');
    const report = JSON.parse(result.stdout) as UsageReport;
    expect(report.by).toBe('model');
    expect(Number.isNaN(Date.parse(report.since))).toBe(false);
    expect(report.rows.map((row) => row.group)).toEqual(['local-echo']);
    const echo = report.rows[0]!;
    expect(echo.requests).toBe(3);
    expect(echo.errors).toBe(0);
    expect(echo.input_tokens).toBeGreaterThan(0);
    expect(echo.output_tokens).toBeGreaterThan(0);
    expect(typeof echo.eur).toBe('string');
    expect(report.total).toMatchObject({ group: 'total', requests: 3 });
  });

  it('--by day gives one row for today', async () => {
    await traffic();
    const report = await igwJson<UsageReport>(sandbox, ['usage', '--by', 'day', '--json']);
    expect(report.by).toBe('day');
    expect(report.rows).toHaveLength(1);
    expect(report.rows[0]!.group).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(report.rows[0]!.requests).toBe(3);
  });

  it('--by key splits requests per key id', async () => {
    const keys = await traffic();
    const report = await igwJson<UsageReport>(sandbox, ['usage', '--by', 'key', '--json']);
    expect(report.by).toBe('key');
    const byGroup = Object.fromEntries(report.rows.map((row) => [row.group, row.requests]));
    expect(byGroup).toEqual({ [keys.first]: 2, [keys.second]: 1 });
    expect(report.total.requests).toBe(3);
  });

  it('counts refused requests as errors', async () => {
    const created = await igwJson<{ key: string }>(sandbox, ['keys', 'create', '--json']);
    const server = await startServer(sandbox);
    expect((await chat(server.url, created.key)).status).toBe(200);
    expect((await chat(server.url, created.key, { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })).status).toBeGreaterThanOrEqual(400);
    expect((await server.stop()).exitCode).toBe(0);
    const report = await igwJson<UsageReport>(sandbox, ['usage', '--json']);
    expect(report.total.requests).toBe(2);
    expect(report.total.errors).toBe(1);
  });

  it('the table form prints a header, a row per group and a total', async () => {
    await traffic();
    const result = await igw(sandbox, ['usage']);
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^MODEL\s+REQUESTS\s+ERRORS/);
    expect(lines.some((line) => /^local-echo\s+3\s+0\s/.test(line))).toBe(true);
    expect(lines.at(-1)).toMatch(/^total\s+3\s/);
  });

  it('with no traffic gives empty rows and zero totals', async () => {
    const report = await igwJson<UsageReport>(sandbox, ['usage', '--json']);
    expect(report.rows).toEqual([]);
    expect(report.total.requests).toBe(0);
  });

  it('an invalid --by exits 1 listing the groupings', async () => {
    const result = await igw(sandbox, ['usage', '--by', 'color', '--json']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('color');
    expect(lines[0]).toMatch(/model, key, day, provider/);
  });

  it('--json carries the window days and a daily request count per row', async () => {
    await traffic();
    const report = await igwJson<UsageReport & { days: string[]; rows: Array<UsageRow & { daily: number[]; latency_p50_ms: number }> }>(sandbox, ['usage', '--since', '3d', '--json']);
    expect(report.days).toHaveLength(4);
    expect(report.days.at(-1)).toBe(new Date().toISOString().slice(0, 10));
    expect(report.rows[0]!.daily).toEqual([0, 0, 0, 3]);
    expect(report.rows[0]!.latency_p50_ms).toBeGreaterThanOrEqual(0);
  });

  it('--since takes a date too; a future one is refused with the next step', async () => {
    await traffic();
    const report = await igwJson<UsageReport>(sandbox, ['usage', '--since', '2020-01-01', '--json']);
    expect(report.since).toBe('2020-01-01T00:00:00.000Z');
    expect(report.total.requests).toBe(3);
    const future = await igw(sandbox, ['usage', '--since', '2999-01-01']);
    expect(future.exitCode).toBe(1);
    expect(future.stderr.trim().split('\n')).toHaveLength(1);
    expect(future.stderr).toContain('future');
  });

  it('an invalid --since exits 1', async () => {
    const result = await igw(sandbox, ['usage', '--since', 'yesterday']);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('yesterday');
  });
});
