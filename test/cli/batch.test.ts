import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBatchCli } from '../helpers/batch-cli.js';
import { chatLine, chatLines } from '../helpers/batches.js';
import { igw, igwJson, startServer } from '../helpers/cli.js';

const cli = useBatchCli();
const slowUpstreamConfig = cli.upstream;
const serve = cli.serve;
const input = cli.input;

const jsonlOf = (text: string) => text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));

describe('igw batch', () => {
  it('submit --wait --output --json: the batch on stdout, one line per row in the output file, the errored row in the error file (exit 3)', async () => {
    await slowUpstreamConfig(0, 4);
    const { env } = await serve();
    const file = await input('in.jsonl', `${chatLines(20, 'up-chat')}\n${chatLine('bad-row', 'fail', 'up-chat')}\n`);
    const out = path.join(cli.sandbox.cwd, 'out.jsonl');
    const errors = path.join(cli.sandbox.cwd, 'errors.jsonl');
    const result = await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions', '--metadata', 'team=search', '--wait', '--output', out, '--errors', errors, '--json'], { env, timeoutMs: 30_000 });
    expect(result.exitCode).toBe(3);
    const batch = JSON.parse(result.stdout);
    expect(batch).toMatchObject({ status: 'succeeded', metadata: { team: 'search' }, request_counts: { succeeded: 20, errored: 1, total: 21 }, saved: { output: out, errors } });
    expect(jsonlOf(await readFile(out, 'utf8'))).toHaveLength(20);
    expect(jsonlOf(await readFile(errors, 'utf8'))).toEqual([expect.objectContaining({ custom_id: 'bad-row', response: null })]);
  }, 40_000);

  it('without a TTY, progress is one plain line per change on stderr; the summary on stdout', async () => {
    const { env } = await serve();
    const file = await input('in.jsonl', chatLines(10));
    const result = await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions', '--wait'], { env, timeoutMs: 30_000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^batch_\S+ succeeded: 10 succeeded, 0 errored of 10 rows$/);
    const lines = result.stderr.split('\n').filter((line) => line.startsWith('batch_'));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines.at(-1)).toMatch(/^batch_\S+ succeeded 10\/10 \(100%\) succeeded=10 errored=0 rows\/s=\S+ eta=\S+$/);
    expect(result.stderr).not.toMatch(/\u001B\[/);
  }, 40_000);

  it('submit without --wait prints the id; get, list, wait and results work on it', async () => {
    const { env } = await serve();
    const file = await input('in.jsonl', chatLines(3));
    const submitted = await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions'], { env });
    expect(submitted.exitCode).toBe(0);
    const id = submitted.stdout.trim();
    expect(id).toMatch(/^batch_\w+$/);
    const waited = await igw(cli.sandbox, ['batch', 'wait', id, '--json'], { env, timeoutMs: 30_000 });
    expect(waited.exitCode).toBe(0);
    expect(JSON.parse(waited.stdout).status).toBe('succeeded');
    expect((await igwJson<{ id: string }>(cli.sandbox, ['batch', 'get', id, '--json'], { env })).id).toBe(id);
    const list = await igwJson<{ data: Array<{ id: string }> }>(cli.sandbox, ['batch', 'list', '--json'], { env });
    expect(list.data.map((entry) => entry.id)).toContain(id);
    const table = await igw(cli.sandbox, ['batch', 'list'], { env });
    expect(table.stdout).toMatch(new RegExp(`${id}\\s+succeeded\\s+/v1/chat/completions\\s+3/3`));
    const results = await igw(cli.sandbox, ['batch', 'results', id], { env });
    expect(results.exitCode).toBe(0);
    expect(jsonlOf(results.stdout).map((line) => line.custom_id).sort()).toEqual(['row-0', 'row-1', 'row-2']);
  }, 40_000);

  it('an invalid file is refused before upload, with FILE:LINE', async () => {
    const { server, env } = await serve();
    const file = await input('bad.jsonl', `${chatLine('a', 'x')}\n{"custom_id": \n`);
    const result = await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions'], { env });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`${file}:2: `);
    expect(result.stderr).toContain('INFERENCE_3306');
    const files = await fetch(`${server.url}/v1/files`, { headers: { authorization: `Bearer ${env['IGW_API_KEY']}` } }).then((response) => response.json() as Promise<{ data: unknown[] }>);
    expect(files.data).toEqual([]);
    const duplicate = await input('dup.jsonl', `${chatLine('a', 'x')}\n${chatLine('a', 'y')}\n`);
    const refused = await igw(cli.sandbox, ['batch', 'submit', duplicate, '--endpoint', '/v1/chat/completions'], { env });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(`${duplicate}:2: `);
    const wrongEndpoint = await igw(cli.sandbox, ['batch', 'submit', duplicate, '--endpoint', '/v1/rerank'], { env });
    expect(wrongEndpoint.exitCode).toBe(1);
    expect(wrongEndpoint.stderr).toMatch(/unsupported batch endpoint/);
  }, 40_000);

  it('cancel: wait exits 5 and the finished rows are kept', async () => {
    await slowUpstreamConfig(100, 1);
    const { env } = await serve();
    const file = await input('in.jsonl', chatLines(40, 'up-chat'));
    const id = (await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions'], { env })).stdout.trim();
    await waitUntilDone(env, id, 2);
    const cancelled = await igwJson<{ status: string }>(cli.sandbox, ['batch', 'cancel', id, '--json'], { env });
    expect(['cancelling', 'cancelled']).toContain(cancelled.status);
    const out = path.join(cli.sandbox.cwd, 'out.jsonl');
    const waited = await igw(cli.sandbox, ['batch', 'wait', id, '--output', out], { env, timeoutMs: 30_000 });
    expect(waited.exitCode).toBe(5);
    expect(waited.stdout).toMatch(/cancelled/);
    expect(jsonlOf(await readFile(out, 'utf8')).length).toBeGreaterThanOrEqual(2);
  }, 40_000);

  it('after a SIGKILL of the server the batch resumes: no row lost, rows written are not run again', async () => {
    const rows = 30;
    const concurrency = 2;
    const fake = await slowUpstreamConfig(60, concurrency);
    const { server, env } = await serve();
    const file = await input('in.jsonl', chatLines(rows, 'up-chat'));
    const id = (await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions'], { env })).stdout.trim();
    await waitUntilDone(env, id, 8);
    await server.stop('SIGKILL');
    const restarted = await startServer(cli.sandbox);
    const out = path.join(cli.sandbox.cwd, 'out.jsonl');
    const waited = await igw(cli.sandbox, ['batch', 'wait', id, '--output', out, '--json'], { env: { ...env, IGW_BASE_URL: restarted.url }, timeoutMs: 30_000 });
    expect(waited.exitCode).toBe(0);
    const lines = jsonlOf(await readFile(out, 'utf8'));
    expect(new Set(lines.map((line) => line.custom_id)).size).toBe(rows);
    expect(lines).toHaveLength(rows);
    const perRow = new Map<string, number>();
    for (const request of fake.requests) {
      const content = String(request.body?.messages?.at(-1)?.content);
      perRow.set(content, (perRow.get(content) ?? 0) + 1);
    }
    expect(perRow.size).toBe(rows);
    // Rows in flight at the kill, or finished but not yet in the results log (≤ one 5 ms flush), may run twice.
    const repeated = [...perRow.values()].filter((count) => count > 1);
    expect(repeated.length).toBeLessThanOrEqual(concurrency * 2);
  }, 60_000);

  it('exit code 1 and a next step when no gateway answers', async () => {
    const file = await input('in.jsonl', chatLines(1));
    const result = await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions'], { env: { IGW_BASE_URL: 'http://127.0.0.1:9', IGW_API_KEY: 'sk-svc-x' } });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/no gateway answers/);
  });
});

async function waitUntilDone(env: Record<string, string>, id: string, atLeast: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const response = await fetch(`${env['IGW_BASE_URL']}/v1/batches/${id}`, { headers: { authorization: `Bearer ${env['IGW_API_KEY']}` } });
    const batch = (await response.json()) as { request_counts: { succeeded: number; errored: number } };
    if (batch.request_counts.succeeded + batch.request_counts.errored >= atLeast) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`batch ${id} did not reach ${atLeast} rows`);
}
