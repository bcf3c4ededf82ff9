import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { useBatchCli } from '../helpers/batch-cli.js';
import { chatLine, chatLines } from '../helpers/batches.js';
import { BIN, igw, igwJson, REPO_ROOT } from '../helpers/cli.js';
import { scriptAvailable } from '../helpers/pty.js';

const terminal = scriptAvailable('batch-contract');

/**
 * The batch command line contract (DESIGN §1): exit codes from the outcome, data alone on stdout,
 * every local problem in one pass, Ctrl-C that says how to follow again; and the README's own
 * batch example, run as written.
 */

const cli = useBatchCli();

/** A gateway on a fake upstream ("up-chat"; rows saying "fail" error), or on the built-in models. */
async function serve(upstream?: { delayMs: number; concurrency: number }): Promise<Record<string, string>> {
  if (upstream !== undefined) await cli.upstream(upstream.delayMs, upstream.concurrency);
  return (await cli.serve()).env;
}
const input = cli.input;

/** A folder with an `igw` executable that runs this build, for shell snippets. */
async function igwOnPath(): Promise<string> {
  const folder = path.join(cli.sandbox.root, 'bin');
  await mkdir(folder, { recursive: true });
  const shim = path.join(folder, 'igw');
  await writeFile(shim, `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  await chmod(shim, 0o755);
  return `${folder}:${cli.sandbox.env['PATH'] ?? ''}`;
}

/** The README's shell block that shows the batch exit codes in a script. */
async function readmeBatchExample(): Promise<string> {
  const readme = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const example = blocks.find((block) => block.includes('igw batch submit') && block.includes('||'));
  if (example === undefined) throw new Error('README.md has no ```sh block with `igw batch submit … ||`');
  return example;
}

describe('batch exit codes', () => {
  it("the README's `… --wait --output results.jsonl || echo` fires on a batch with an errored row, and not on a clean one", async () => {
    const env = { ...(await serve({ delayMs: 0, concurrency: 4 })), PATH: await igwOnPath() };
    const example = await readmeBatchExample();
    expect(example).toContain('--wait --output results.jsonl');
    // `igw batch submit --help` shows the same example.
    const words = (text: string) => text.trim().split(/\s+/).join(' ');
    const help = await igw(cli.sandbox, ['batch', 'submit', '--help']);
    expect(words(help.stdout.split('\nExample:\n')[1] ?? '')).toBe(words(example));
    const run = () => execa('sh', ['-c', example], { cwd: cli.sandbox.cwd, env: { ...cli.sandbox.env, ...env }, extendEnv: false, reject: false, timeout: 30_000 });

    await writeFile(path.join(cli.sandbox.cwd, 'requests.jsonl'), `${chatLine('ok', 'hello', 'up-chat')}\n${chatLine('bad', 'fail', 'up-chat')}\n`);
    const failing = await run();
    expect(failing.stdout).toMatch(/batch did not succeed/);
    expect(failing.stdout).toMatch(/exit 3/);
    const rows = (await readFile(path.join(cli.sandbox.cwd, 'results.jsonl'), 'utf8')).trim().split('\n');
    expect(rows.map((line) => JSON.parse(line).custom_id)).toEqual(['ok']);

    await writeFile(path.join(cli.sandbox.cwd, 'requests.jsonl'), `${chatLines(3, 'up-chat')}\n`);
    const clean = await run();
    expect(clean.exitCode).toBe(0);
    expect(clean.stdout).not.toMatch(/batch did not succeed/);
  }, 60_000);

  it('wait exits 3 with errored rows, names them on stderr, and counts them in the summary', async () => {
    const env = await serve({ delayMs: 0, concurrency: 4 });
    const file = await input('in.jsonl', `${chatLines(4, 'up-chat')}\n${chatLine('bad', 'fail', 'up-chat')}\n`);
    const id = (await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions'], { env })).stdout.trim();
    const waited = await igw(cli.sandbox, ['batch', 'wait', id], { env, timeoutMs: 30_000 });
    expect(waited.exitCode).toBe(3);
    expect(waited.stdout.trim()).toBe(`${id} succeeded: 4 succeeded, 1 errored of 5 rows`);
    expect(waited.stderr).toContain(`igw batch results ${id} --errors`);
    const json = await igw(cli.sandbox, ['batch', 'wait', id, '--json'], { env });
    expect(json.exitCode).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ id, status: 'succeeded', request_counts: { errored: 1 } });
  }, 60_000);

  it('an expired batch exits 4 and counts the rows it never ran', async () => {
    const env = await serve({ delayMs: 400, concurrency: 1 });
    const file = await input('in.jsonl', chatLines(20, 'up-chat'));
    const result = await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions', '--window', '1s', '--wait'], { env, timeoutMs: 30_000 });
    expect(result.exitCode).toBe(4);
    const summary = /^(batch_\S+) expired: (\d+) succeeded, 0 errored, (\d+) not run \(expired\) of 20 rows$/.exec(result.stdout.trim());
    expect(summary, result.stdout).not.toBeNull();
    expect(Number(summary![2]) + Number(summary![3])).toBe(20);
  }, 60_000);
});

describe('channels', () => {
  it('--output -: stdout is only JSONL rows (jq-safe); the summary and progress are on stderr', async () => {
    const env = await serve();
    const file = await input('in.jsonl', chatLines(5));
    const result = await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions', '--wait', '--output', '-'], { env, timeoutMs: 30_000 });
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(result.stderr).toMatch(/^batch_\S+ succeeded: 5 succeeded, 0 errored of 5 rows$/m);

    const id = /^(batch_\S+) succeeded:/m.exec(result.stderr)![1]!;
    const waited = await igw(cli.sandbox, ['batch', 'wait', id, '--output', '-'], { env });
    expect(waited.exitCode).toBe(0);
    expect(waited.stdout.trim().split('\n').map((line) => JSON.parse(line).custom_id).sort()).toEqual(['row-0', 'row-1', 'row-2', 'row-3', 'row-4']);
    expect(waited.stderr).toContain(`${id} succeeded: 5 succeeded`);
  }, 60_000);

  it('--json with --output - is refused before anything runs (two documents on one stdout)', async () => {
    const file = await input('in.jsonl', chatLines(1));
    const result = await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions', '--wait', '--output', '-', '--json'], { env: { IGW_API_KEY: 'sk-svc-x', IGW_BASE_URL: 'http://127.0.0.1:9' } });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^igw: --json and --output - would both write to stdout; /m);
  });
});

describe('the local check before submitting', () => {
  it('reports every problem of the file in one run, with line numbers, and uploads nothing', async () => {
    const env = await serve();
    const rows = [
      chatLine('good', 'hi'),
      JSON.stringify({ custom_id: 'no-messages', method: 'POST', url: '/v1/chat/completions', body: { model: 'local-echo' } }),
      JSON.stringify({ custom_id: 'streams', method: 'POST', url: '/v1/chat/completions', body: { model: 'local-echo', stream: true, messages: [{ role: 'user', content: 'x' }] } }),
      chatLine('typo', 'x', 'local-ecoh'),
      chatLine('embed', 'x', 'local-embed'),
      '{"custom_id": ',
      chatLine('good', 'again'),
      JSON.stringify({ custom_id: 'temp', method: 'POST', url: '/v1/chat/completions', body: { model: 'local-echo', temperature: 'hot', messages: [{ role: 'user', content: 'x' }] } }),
    ];
    const file = await input('bad.jsonl', `${rows.join('\n')}\n`);
    const result = await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions'], { env });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    const stderr = result.stderr;
    expect(stderr).toContain(`${file}:2: body.messages is required`);
    expect(stderr).toContain(`${file}:3: body.stream must be left out`);
    expect(stderr).toContain(`${file}:4: body.model: unknown model "local-ecoh"`);
    expect(stderr).toContain('Did you mean "local-echo"?');
    expect(stderr).toMatch(new RegExp(`${file}:5: body.model: "local-embed" is an embeddings model; /v1/chat/completions runs chat models`));
    expect(stderr).toMatch(new RegExp(`${file}:6: does not parse as JSON .*\\(INFERENCE_3306\\)`));
    expect(stderr).toMatch(new RegExp(`${file}:7: custom_id "good" appears twice.*\\(INFERENCE_3303\\)`));
    expect(stderr).toContain(`${file}:8: body.temperature must be a number, not a string`);
    expect(stderr).not.toMatch(/Invalid input/);
    expect(stderr.trim().split('\n').at(-1)).toBe(`igw: 7 problems in ${file} (7 lines); nothing was uploaded; fix them and submit again`);
    const files = await fetch(`${env['IGW_BASE_URL']}/v1/files`, { headers: { authorization: `Bearer ${env['IGW_API_KEY']}` } }).then((response) => response.json() as Promise<{ data: unknown[] }>);
    expect(files.data).toEqual([]);
  }, 40_000);

  it('a key that may not list models still submits: the models are left to the gateway, and it says so', async () => {
    const env = await serve();
    const chatOnly = await igwJson<{ key: string }>(cli.sandbox, ['keys', 'create', '--scopes', 'inference.chat', '--json']);
    const file = await input('in.jsonl', `${chatLines(2)}\n`);
    const result = await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions', '--wait'], { env: { ...env, IGW_API_KEY: chatOnly.key }, timeoutMs: 30_000 });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(`${file}: the models were not checked (this key may not list models: scope inference.models)`);
  }, 40_000);

  it('an unknown flavor and a mistyped endpoint get a "did you mean"', async () => {
    const env = await serve();
    const file = await input('flavor.jsonl', `${chatLine('a', 'x', 'local-echo:ecoo')}\n`);
    const flavor = await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions'], { env });
    expect(flavor.exitCode).toBe(1);
    expect(flavor.stderr).toContain(`${file}:1: body.model: "local-echo:ecoo" has an unknown flavor ":ecoo"`);
    expect(flavor.stderr).toContain('Did you mean ":eco"?');
    const endpoint = await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completion'], { env });
    expect(endpoint.exitCode).toBe(1);
    expect(endpoint.stderr).toContain('Did you mean "/v1/chat/completions"?');
  }, 40_000);
});

describe('Ctrl-C while following', () => {
  it('exits 130, prints the batch id and the command to follow it again; the batch keeps running', async () => {
    const env = await serve({ delayMs: 150, concurrency: 1 });
    const file = await input('in.jsonl', chatLines(30, 'up-chat'));
    const id = (await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions'], { env })).stdout.trim();
    const out = path.join(cli.sandbox.cwd, 'out.jsonl');
    const follower = execa(process.execPath, [BIN, 'batch', 'wait', id, '--output', out], { cwd: cli.sandbox.cwd, env: { ...cli.sandbox.env, ...env }, extendEnv: false, reject: false, buffer: true, timeout: 30_000 });
    // Interrupt once it is following (its first progress line is out).
    await new Promise<void>((resolve) => {
      let seen = '';
      follower.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes(`${id} `)) resolve();
      });
    });
    follower.kill('SIGINT');
    const result = await follower;
    expect(result.exitCode).toBe(130);
    expect(String(result.stderr)).toContain(`igw: stopped following ${id}; the batch keeps running`);
    expect(String(result.stderr)).toContain(`Follow it again with: igw batch wait ${id} --output ${out}`);
    const batch = await fetch(`${env['IGW_BASE_URL']}/v1/batches/${id}`, { headers: { authorization: `Bearer ${env['IGW_API_KEY']}` } }).then((response) => response.json() as Promise<{ status: string }>);
    expect(['queued', 'in_progress']).toContain(batch.status);
  }, 60_000);
});

describe.skipIf(!terminal)('Ctrl-C on a terminal (the ink progress view)', () => {
  it('the view is drawn, Ctrl-C clears it, says how to follow again and exits 130', async () => {
    const env = await serve({ delayMs: 150, concurrency: 1 });
    const file = await input('in.jsonl', chatLines(30, 'up-chat'));
    const id = (await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions'], { env })).stdout.trim();
    const command = `stty cols 120 rows 30; exec ${process.execPath} ${BIN} batch wait ${id}`;
    const follower = execa('script', ['-qefc', command, '/dev/null'], { cwd: cli.sandbox.cwd, env: { ...cli.sandbox.env, ...env, TERM: 'xterm-256color' }, extendEnv: false, reject: false, stdin: 'pipe', timeout: 30_000 });
    await new Promise<void>((resolve) => {
      let seen = '';
      follower.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (/rows\/s/.test(seen)) resolve();
      });
    });
    // The terminal's interrupt character: the line discipline turns it into SIGINT.
    follower.stdin!.write('\u0003');
    const result = await follower;
    expect(result.exitCode).toBe(130);
    expect(String(result.stdout)).toContain(`igw: stopped following ${id}; the batch keeps running`);
    expect(String(result.stdout)).toContain(`Follow it again with: igw batch wait ${id}`);
  }, 60_000);
});

describe('cancel', () => {
  it('the summary counts the cancelled rows (the error file lists them) and wait exits 5', async () => {
    const env = await serve({ delayMs: 100, concurrency: 1 });
    const file = await input('in.jsonl', chatLines(40, 'up-chat'));
    const id = (await igw(cli.sandbox, ['batch', 'submit', file, '--endpoint', '/v1/chat/completions'], { env })).stdout.trim();
    const cancelled = await igw(cli.sandbox, ['batch', 'cancel', id], { env });
    expect(cancelled.exitCode).toBe(0);
    expect(cancelled.stdout).toMatch(new RegExp(`^${id} (cancelling|cancelled): \\d+ succeeded, 0 errored`));
    const errors = path.join(cli.sandbox.cwd, 'errors.jsonl');
    const waited = await igw(cli.sandbox, ['batch', 'wait', id, '--errors', errors], { env, timeoutMs: 30_000 });
    expect(waited.exitCode).toBe(5);
    const summary = /^batch_\S+ cancelled: (\d+) succeeded, 0 errored, (\d+) cancelled of 40 rows$/.exec(waited.stdout.trim());
    expect(summary, waited.stdout).not.toBeNull();
    const notRun = (await readFile(errors, 'utf8')).trim().split('\n').filter((line) => JSON.parse(line).error.code === 'batch_cancelled');
    expect(Number(summary![2])).toBe(notRun.length);
    expect(Number(summary![1]) + notRun.length).toBe(40);
  }, 60_000);
});
